// End-to-end: a memory for every conversation, against a real `tessera serve` whose model is the
// scripted provider. The model calls `save_memory` with `scope: everywhere`; the person allows it
// in the consent dialog; the Memory panel (from the sidebar) shows it with where it came from;
// forgotten there, the engine lists it no more.

import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { RESULTS_DIR, sendMessage, suiteStack } from './harness.mjs';
import { pushReplies, textReply, toolCallReply } from './scripted.mjs';

const FACT = 'The person measures everything in metric units.';

describe('the Memory panel', () => {
  const suite = suiteStack();

  async function api(method, route) {
    const { stack } = suite;
    const response = await fetch(new URL(route, stack.url), { method, headers: { Authorization: `Bearer ${stack.token}` } });
    const text = await response.text();
    assert.ok(response.ok, `${method} ${route}: ${response.status} ${text}`);
    return text ? JSON.parse(text) : null;
  }

  test('a memory saved for every conversation, once allowed, shows in the panel and is forgotten there', async () => {
    const { stack } = suite;
    await pushReplies(stack.providerUrl, [toolCallReply('call_mem', 'save_memory', { content: FACT, scope: 'everywhere', key: 'units' }), textReply(['Noted: metric from now on.'])]);
    const { page, errors } = await suite.open('en-US');
    await page.getByRole('button', { name: 'New conversation' }).first().click();
    await sendMessage(page, 'Remember that I use metric units, in every conversation.');

    // The wider scope asks first; the dialog shows the call.
    const consent = page.getByRole('dialog', { name: 'Allow the tool save_memory to run?' });
    await consent.waitFor({ timeout: 15_000 });
    assert.deepEqual(JSON.parse((await consent.getByTestId('consent-arguments').textContent()) ?? ''), { content: FACT, scope: 'everywhere', key: 'units' });
    await consent.getByRole('button', { name: 'Allow once' }).click();
    const log = page.getByRole('log', { name: 'Messages' });
    await log.getByText('Noted: metric from now on.').waitFor({ timeout: 15_000 });
    await log.getByTestId('assistant-message').last().getByTestId('usage').waitFor({ timeout: 15_000 });

    const { memories } = await api('GET', '/v1/memories?scope=everywhere');
    assert.equal(memories.length, 1, JSON.stringify(memories));
    const { conversations } = await api('GET', '/v1/conversations');
    assert.equal(conversations.length, 1);
    assert.equal(memories[0].source_conversation_id, conversations[0].id);
    const title = conversations[0].title || 'Untitled';

    // The panel, from the sidebar.
    const opener = page.getByTestId('open-memory');
    await opener.click();
    const panel = page.getByRole('dialog', { name: 'Memory' });
    await panel.waitFor({ timeout: 5_000 });
    const item = panel.getByTestId('memory-item').filter({ hasText: FACT });
    await item.waitFor({ timeout: 5_000 });
    assert.equal(await item.getByTestId('memory-scope').textContent(), 'Every conversation');
    assert.match((await item.getByTestId('memory-source').textContent()) ?? '', new RegExp(`Saved in conversation “${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}”`));
    assert.equal(await item.locator('.memory-key').textContent(), 'units');
    // Searched on the engine: words it holds keep it, others do not.
    await panel.getByRole('searchbox', { name: 'Search memories' }).fill('metric');
    await page.waitForResponse((r) => r.url().includes('/v1/memories?q=metric'), { timeout: 5_000 });
    await item.waitFor();
    await page.screenshot({ path: path.join(RESULTS_DIR, 'memory-panel.png') });

    // Forgotten: asked first, then gone from the panel and from the engine.
    await item.getByRole('button', { name: /^Forget the memory/ }).click();
    await item.getByRole('button', { name: 'Forget', exact: true }).click();
    await item.waitFor({ state: 'detached', timeout: 5_000 });
    await panel.getByTestId('memory-empty').waitFor({ timeout: 5_000 });
    assert.deepEqual((await api('GET', '/v1/memories')).memories, []);

    // Escape closes it; the keyboard is back on the Memory button.
    await page.keyboard.press('Escape');
    await panel.waitFor({ state: 'detached' });
    assert.ok(await opener.evaluate((el) => el === document.activeElement), 'the Memory button has the focus back');
    assert.deepEqual(errors, []);
  });
});
