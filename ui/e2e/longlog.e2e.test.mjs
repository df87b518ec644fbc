// End-to-end: a long conversation (issue 27) through the built UI, with a real `tessera serve`:
// only the messages near the view are in the page, the rest is drawn when scrolled to; the view
// stays put while rows come in above it; Home, End and PageUp go where they should; an answer
// streamed at its end is followed; Edit works on a message far up.

import assert from 'node:assert/strict';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { RESULTS_DIR, sendMessage, suiteStack } from './harness.mjs';
import { modelCalls, pushReplies, textReply } from './scripted.mjs';

const TURNS = 150;

/** A seed-004 context document of `TURNS` questions and answers (Markdown with a list, code and a table). */
function longDocument(title) {
  const messages = [];
  for (let t = 1; t <= TURNS; t++) {
    messages.push({ role: 'user', content: `Question ${t}: how does stage ${t} handle a late batch?` });
    messages.push({
      role: 'assistant',
      content: [
        `Answer ${t}: stage ${t} re-checks the **watermark** before it commits a late batch, and merges it when it reaches behind it.`,
        `- the lag behind the watermark;\n- retries of the same batch;\n- the size of the merge buffer.`,
        '```rust\nfn accept(stage: &mut Stage, batch: Batch) {\n    stage.merge(batch);\n}\n```',
        '| setting | default |\n|---|---|\n| late_window | 5 min |\n| retries | 3 |',
        `${'In short, a late batch costs a comparison, or a merge when it is very late. '.repeat(1 + (t % 4))}`,
      ].join('\n\n'),
    });
  }
  return {
    schema_version: '1.0',
    meta: { tessera: { title } },
    session: { session_id: `long-${title.replace(/\W+/g, '-').toLowerCase()}`, messages, task_state: { todo_list: { tasks: [] } } },
    evidences: {},
    context_blocks: [],
  };
}

describe('a long conversation', () => {
  const suite = suiteStack();
  let stack;
  before(() => ({ stack } = suite));

  async function importLong(title) {
    const response = await fetch(new URL('/v1/conversations/import', stack.url), {
      method: 'POST',
      headers: { Authorization: `Bearer ${stack.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(longDocument(title)),
    });
    assert.equal(response.status, 201, await response.clone().text());
  }

  async function openLong(title) {
    const { page, errors } = await suite.open('en-US');
    await page.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: title, exact: true }).click();
    const log = page.getByRole('log', { name: 'Messages' });
    await log.getByText(`Answer ${TURNS}:`).waitFor({ timeout: 15_000 });
    return { page, errors, log };
  }

  /** The log's scroll position and its greatest, and how many messages are in the page. */
  const state = (page) =>
    page.evaluate(() => {
      const log = document.querySelector('[data-testid="message-list"]');
      return {
        top: log.scrollTop,
        max: log.scrollHeight - log.clientHeight,
        view: log.clientHeight,
        messages: log.querySelectorAll('[data-testid="user-message"], [data-testid="assistant-message"]').length,
      };
    });

  /** Whether `locator` is in the log's view, wholly or reaching across it. */
  const inView = (page, locator) =>
    locator.evaluate((el) => {
      const log = el.closest('[role="log"]').getBoundingClientRect();
      const r = el.getBoundingClientRect();
      return r.bottom >= log.top && r.top <= log.bottom && el.getClientRects().length > 0;
    });

  test('opens at its end with few messages in the page; scrolled up, the view stays put; Home, End and PageUp go where they should', async () => {
    await importLong('A long conversation');
    const { page, errors, log } = await openLong('A long conversation');
    const last = log.getByTestId('assistant-message').filter({ hasText: `Answer ${TURNS}:` });
    assert.ok(await inView(page, last), 'the last answer is in view');
    assert.ok(await inView(page, log.getByTestId('log-end')), 'the end of the log is in view');
    const opened = await state(page);
    assert.ok(opened.messages > 0 && opened.messages < 30, `${opened.messages} of ${2 * TURNS} messages in the page`);
    await page.screenshot({ path: path.join(RESULTS_DIR, 'long-conversation-end.png') });

    // Up most of a screen at a time: the row at the view's top stays where it is while the rows
    // above it come into the page (measured: not as tall as estimated).
    for (let step = 0; step < 25; step++) {
      const moved = await page.evaluate(async () => {
        const log = document.querySelector('[data-testid="message-list"]');
        log.scrollTop -= Math.round(log.clientHeight * 0.9);
        const view = log.getBoundingClientRect().top;
        // The first row reaching below the view's top (which may be in the gap above it).
        const row = [...log.querySelectorAll('[data-row-key]')].find((r) => r.getBoundingClientRect().bottom > view);
        if (!row) return { missing: true, top: log.scrollTop };
        const before = row.getBoundingClientRect().top;
        await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 50))));
        return { moved: row.isConnected ? row.getBoundingClientRect().top - before : null, key: row.getAttribute('data-row-key') };
      });
      assert.ok(!moved.missing, `step ${step}: a row at the view's top (${JSON.stringify(moved)})`);
      assert.ok(moved.moved !== null && Math.abs(moved.moved) < 2, `step ${step}: what was read moved ${JSON.stringify(moved)}`);
    }
    const scrolled = await state(page);
    assert.ok(scrolled.messages < 30, `${scrolled.messages} messages in the page after scrolling`);
    assert.equal(await log.getByText(`Answer ${TURNS}:`).count(), 0, 'the end is out of the page');

    // Home from inside the log: the true top; End: the true end.
    await log.getByRole('button', { name: 'Copy code' }).first().focus();
    await page.keyboard.press('Home');
    await log.getByText('Question 1:', { exact: false }).first().waitFor({ timeout: 10_000 });
    await page.waitForTimeout(300);
    assert.equal((await state(page)).top, 0);
    assert.ok(await inView(page, log.getByTestId('user-message').first()), 'the first question is in view');
    await page.screenshot({ path: path.join(RESULTS_DIR, 'long-conversation-top.png') });

    // Tab from the first question on: through the messages in order, one after the other, the
    // rows after them put in the page as the focus comes near (never out of the log, no skipping).
    await log.getByTestId('user-message').first().getByRole('button', { name: 'Edit' }).focus();
    const turns = [];
    for (let i = 0; i < 40; i++) {
      await page.keyboard.press('Tab');
      const at = await page.evaluate(() => {
        const el = document.activeElement;
        const message = el?.closest('[data-testid="user-message"], [data-testid="assistant-message"]');
        const n = /(?:Question|Answer) (\d+):/.exec(message?.textContent ?? '')?.[1];
        return n ? Number(n) : null;
      });
      assert.ok(at !== null, `Tab ${i + 1} stayed in the log's messages`);
      turns.push(at);
    }
    for (let i = 1; i < turns.length; i++) assert.ok(turns[i] - turns[i - 1] >= 0 && turns[i] - turns[i - 1] <= 1, `in order: ${turns.join(' ')}`);
    assert.ok(turns.at(-1) >= 15, `Tab went on through the rows: ${turns.join(' ')}`);
    assert.ok((await state(page)).messages < 40);

    await page.keyboard.press('End');
    await last.waitFor({ timeout: 10_000 });
    await page.waitForTimeout(300);
    const ended = await state(page);
    assert.ok(ended.top >= ended.max - 1, `End reaches the true end: ${JSON.stringify(ended)}`);
    assert.ok(await inView(page, log.getByRole('button', { name: 'Regenerate' })), 'Regenerate, under the last answer, is in view');

    // PageUp: about a screen up.
    await page.keyboard.press('PageUp');
    await page.waitForTimeout(800);
    const paged = await state(page);
    assert.ok(ended.top - paged.top > paged.view * 0.5 && ended.top - paged.top <= paged.view, `PageUp went up ${ended.top - paged.top} px of a ${paged.view} px view`);
    assert.deepEqual(errors, []);
  });

  test('an answer streamed at the end of a long conversation is followed, or not when the person scrolled up; Edit works on a message far up', async () => {
    await importLong('Another long conversation');
    const pieces = Array.from({ length: 60 }, (_, i) => `word${i} ${i % 12 === 11 ? '\n\n' : ''}`);
    // The answer, then the running summary the engine asks for once a conversation is this long.
    await pushReplies(stack.providerUrl, [textReply(pieces, 20), textReply(['The person asked about stages.'])]);
    const { page, errors, log } = await openLong('Another long conversation');
    const calls = (await modelCalls(stack.providerUrl)).length;

    await sendMessage(page, 'One more question');
    const answer = log.getByTestId('assistant-message').last();
    await answer.getByTestId('usage').waitFor({ timeout: 30_000 });
    await log.getByRole('button', { name: 'Regenerate' }).waitFor({ timeout: 15_000 });
    await page.waitForTimeout(300);
    assert.match((await answer.textContent()) ?? '', /word59/);
    assert.ok(await inView(page, log.getByTestId('log-end')), 'the end of the answer is in view');
    assert.ok(await inView(page, log.getByRole('button', { name: 'Regenerate' })), 'and Regenerate under it');
    assert.ok((await state(page)).messages < 30);

    // Once the summary has had its reply: a slow answer, and the person scrolls up to read while
    // it streams. It goes on without pulling them down; what they read stays where it is while
    // the rows above it come into the page.
    const summarised = async () => {
      const made = (await modelCalls(stack.providerUrl)).slice(calls);
      return made.some((call) => JSON.stringify(call.body?.messages?.[0] ?? '').includes('running summary'));
    };
    for (let i = 0; i < 100 && !(await summarised()); i++) await page.waitForTimeout(100);
    const slow = Array.from({ length: 60 }, (_, i) => `slow${i} ${i % 12 === 11 ? '\n\n' : ''}`);
    await pushReplies(stack.providerUrl, [textReply(slow, 60), textReply(['Answer to the edit.'])]);
    await sendMessage(page, 'And a slow one');
    const streaming = log.getByTestId('assistant-message').last();
    await streaming.getByText('slow3', { exact: false }).waitFor({ timeout: 15_000 });
    const read = await page.evaluate(() => {
      const list = document.querySelector('[data-testid="message-list"]');
      list.scrollTop -= 3 * list.clientHeight;
      const view = list.getBoundingClientRect().top;
      const row = [...list.querySelectorAll('[data-row-key]')].find((r) => r.getBoundingClientRect().bottom > view);
      return { key: row.getAttribute('data-row-key'), top: row.getBoundingClientRect().top };
    });
    await streaming.getByTestId('usage').waitFor({ timeout: 30_000 });
    await page.waitForTimeout(500);
    const after = await page.evaluate((key) => document.querySelector(`[data-row-key="${key}"]`)?.getBoundingClientRect().top ?? null, read.key);
    assert.ok(after !== null && Math.abs(after - read.top) < 2, `what was read moved from ${read.top} to ${after}`);
    assert.equal(await inView(page, log.getByTestId('log-end')), false, 'the end was not brought into view');

    // The first question, far up: Edit, and resend it.
    await log.getByRole('button', { name: 'Copy code' }).last().focus();
    await page.keyboard.press('Home');
    const first = log.getByTestId('user-message').filter({ hasText: 'Question 1:' });
    await first.waitFor({ timeout: 10_000 });
    await first.getByRole('button', { name: 'Edit' }).click();
    const edit = log.getByRole('textbox', { name: 'Edit your message' });
    await edit.fill('Question 1, asked again');
    await edit.press('Enter');
    await log.getByText('Answer to the edit.').waitFor({ timeout: 15_000 });
    const question = log.getByTestId('user-message').filter({ hasText: 'Question 1, asked again' });
    await question.getByTestId('branch-position').filter({ hasText: '2 / 2' }).waitFor({ timeout: 10_000 });
    // The new branch is the question and its answer alone.
    assert.equal(await log.getByTestId('user-message').count(), 1);
    assert.equal(await log.getByText(`Answer ${TURNS}:`).count(), 0);
    assert.deepEqual(errors, []);
  });
});
