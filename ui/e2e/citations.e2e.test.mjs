// End-to-end: an answer's citations of a project's passages, against a real `tessera serve`
// whose model is the scripted provider. A project knows a folder (with a Chinese name) holding a
// note with a needle; in a conversation of that project the prompt carries the note's passage;
// the scripted answer cites it, and cites a file never sent. The first shows as verified, the
// second as not; the verified one opens the passage, the needle's line marked, Escape closes it.

import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { RESULTS_DIR, sendMessage, suiteStack } from './harness.mjs';
import { modelCalls, pushReplies, textReply } from './scripted.mjs';

const NEEDLE = 'The harbour ferry leaves at 07:40 from pier nine.';

describe('citations in an answer', () => {
  const suite = suiteStack();
  let stack;
  let notes;
  before(() => {
    ({ stack } = suite);
    notes = mkdtempSync(path.join(os.tmpdir(), 'tessera-e2e-cite-'));
  });
  after(() => rmSync(notes, { recursive: true, force: true }));

  async function api(method, route, body) {
    const response = await fetch(new URL(route, stack.url), {
      method,
      headers: { Authorization: `Bearer ${stack.token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await response.text();
    assert.ok(response.ok, `${method} ${route}: ${response.status} ${text}`);
    return text ? JSON.parse(text) : null;
  }

  test('a citation of a passage given shows as verified and opens it; one never sent shows as not', async () => {
    // A project whose folder holds a note with the needle on line 6.
    const folder = path.join(notes, '项目 笔记');
    mkdirSync(folder, { recursive: true });
    const lines = ['# Travel plan', '', 'Notes for the trip to the island.', '', '## Ferry', NEEDLE, 'Bring the tickets printed.', ''];
    writeFileSync(path.join(folder, 'plan.md'), lines.join('\n'));
    await api('POST', '/v1/projects', { name: 'Atlas' });
    await api('POST', '/v1/projects/Atlas/knowledge', { path: folder });
    const deadline = Date.now() + 30_000;
    for (;;) {
      const status = await api('GET', '/v1/projects/Atlas/knowledge');
      if (status.idle && status.indexed_files >= 1) break;
      assert.ok(Date.now() < deadline, `the folder was not indexed: ${JSON.stringify(status)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    // The path as the index keeps it (links resolved), and the passage's lines.
    const { hits } = await api('GET', `/v1/projects/Atlas/knowledge/search?q=${encodeURIComponent('harbour ferry')}`);
    const hit = hits.find((h) => h.text.includes(NEEDLE));
    assert.ok(hit, `the needle is found: ${JSON.stringify(hits)}`);
    const needleLine = 6;
    assert.ok(hit.lines[0] <= needleLine && needleLine <= hit.lines[1], `the passage holds line ${needleLine}: ${hit.lines}`);
    const given = `[${hit.path}:${needleLine}]`;
    const neverSent = '[/home/nobody/secret plans/moon.md:3-4]';

    // A first message makes the conversation; it is then moved into the project.
    await pushReplies(stack.providerUrl, [textReply(['Hello.'])]);
    const { page, errors } = await suite.open('en-US');
    await page.getByRole('button', { name: 'New conversation' }).first().click();
    await sendMessage(page, 'Hi');
    const log = page.getByRole('log', { name: 'Messages' });
    await log.getByText('Hello.').waitFor({ timeout: 15_000 });
    await log.getByTestId('assistant-message').last().getByTestId('usage').waitFor({ timeout: 15_000 });
    const { conversations } = await api('GET', '/v1/conversations');
    assert.equal(conversations.length, 1);
    await api('PUT', `/v1/conversations/${encodeURIComponent(conversations[0].id)}/project`, { project: 'Atlas' });

    await pushReplies(stack.providerUrl, [textReply(['The ferry leaves at 07:40 ', given, '. Pack a ', 'torch ', neverSent, '. Check with `cat ', given, '`.'])]);
    const contextRequests = [];
    page.on('request', (request) => {
      if (/\/v1\/runs\/[^/]+\/context$/.test(new URL(request.url()).pathname)) contextRequests.push(request.url());
    });
    await sendMessage(page, `When does the harbour ferry leave? Not ${neverSent} I guess.`);
    // The second answer (`last()` would still be the first until the second is drawn).
    const answer = log.getByTestId('assistant-message').nth(1);
    await answer.getByTestId('usage').waitFor({ timeout: 15_000 });
    // The model was given the passage: the prompt carried the needle under its citation.
    const calls = await modelCalls(stack.providerUrl);
    const prompt = JSON.stringify(calls.at(-1)?.body ?? calls.at(-1));
    assert.ok(prompt.includes(NEEDLE), 'the prompt carried the note');

    const verified = answer.getByRole('button', { name: 'Citation of plan.md, line 6: Among the passages the model was given' });
    await verified.waitFor({ timeout: 10_000 });
    assert.equal(await verified.getAttribute('data-state'), 'verified');
    assert.equal(await verified.textContent(), '✓plan.md:6');
    assert.match((await verified.getAttribute('title')) ?? '', new RegExp(hit.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    const unverified = answer.getByRole('button', { name: 'Citation of moon.md, lines 3-4: Not among the passages the model was given' });
    assert.equal(await unverified.getAttribute('data-state'), 'unverified');
    assert.match((await unverified.getAttribute('title')) ?? '', /^\/home\/nobody\/secret plans\/moon\.md · lines 3-4\nNot among the passages the model was given$/);
    // The citation in code stays code.
    assert.equal(await answer.getByTestId('citation-chip').count(), 2);
    assert.equal(await answer.locator('code').filter({ hasText: `cat ${given}` }).count(), 1);
    // The person's own message is never made chips of.
    const question = log.getByTestId('user-message').last();
    assert.match((await question.textContent()) ?? '', /Not \[\/home\/nobody\/secret plans\/moon\.md:3-4\] I guess/);
    assert.equal(await question.getByTestId('citation-chip').count(), 0);
    await answer.screenshot({ path: path.join(RESULTS_DIR, 'citations-chips.png') });

    // Opened from the keyboard: the passage, the needle's line marked; Escape gives the focus back.
    await verified.focus();
    await page.keyboard.press('Enter');
    const pane = page.getByRole('dialog', { name: 'Cited passage' });
    await pane.waitFor({ timeout: 5_000 });
    assert.equal(await pane.getByTestId('citation-path').textContent(), hit.path);
    assert.equal(await pane.getByTestId('citation-where').textContent(), 'line 6');
    assert.match((await pane.textContent()) ?? '', /ProjectAtlas/);
    assert.deepEqual(await pane.locator('mark').allTextContents(), [NEEDLE]);
    assert.equal(await pane.locator('[data-line="6"]').count(), 1);
    await pane.getByRole('button', { name: 'Copy path' }).waitFor();
    assert.equal(await pane.getByRole('button', { name: 'Open in its app' }).count(), 0, 'no way to open a file from a browser');
    await page.screenshot({ path: path.join(RESULTS_DIR, 'citations-pane.png') });
    await page.keyboard.press('Escape');
    await pane.waitFor({ state: 'detached' });
    assert.ok(await verified.evaluate((el) => el === document.activeElement), 'the chip has the focus back');

    // The run's passages were asked of the engine once for the answer.
    assert.equal(contextRequests.length, 1, contextRequests.join('\n'));
    assert.deepEqual(errors, []);
  });
});
