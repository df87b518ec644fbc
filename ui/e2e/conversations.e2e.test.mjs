// End-to-end: the conversation list and message versions through the built UI, with a real
// `tessera serve` whose model is the scripted provider: rename (Enter saves, Escape cancels),
// search on the engine (Chinese too), delete with undo (DELETE only once the undo time is
// over); regenerate and edit-and-resend, the earlier versions kept and switchable.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import { RESULTS_DIR, SCREENS_DIR, openPage, sendMessage, stopChild, suiteStack } from './harness.mjs';
import { modelCalls, pushReplies, textReply } from './scripted.mjs';

/**
 * Chromium with overlay scrollbars, drawn over the page as WebKitGTK draws its own (the
 * headless browser of the other tests draws none): a headed browser on an X server of its own.
 */
async function overlayScrollbarBrowser() {
  const xvfb = spawn('Xvfb', ['-displayfd', '1', '-screen', '0', '1400x1000x24', '-nolisten', 'tcp'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const display = await new Promise((resolve, reject) => {
    xvfb.on('error', reject);
    xvfb.stdout.setEncoding('utf8');
    xvfb.stdout.once('data', (n) => resolve(`:${n.trim()}`));
  });
  try {
    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_BIN || '/usr/bin/chromium',
      headless: false,
      env: { ...process.env, DISPLAY: display },
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--enable-features=OverlayScrollbar'],
    });
    return { browser, stop: async () => (await browser.close().catch(() => {}), await stopChild(xvfb)) };
  } catch (error) {
    await stopChild(xvfb);
    throw error;
  }
}

/** Where at `box` (its centre, and 1 px inside each edge) the pointer does not reach `element`. */
function outOfReach(element) {
  return element.evaluate((el) => {
    const r = el.getBoundingClientRect();
    const points = {
      centre: [r.left + r.width / 2, r.top + r.height / 2],
      left: [r.left + 1, r.top + r.height / 2],
      right: [r.right - 1, r.top + r.height / 2],
      top: [r.left + r.width / 2, r.top + 1],
      bottom: [r.left + r.width / 2, r.bottom - 1],
    };
    return Object.entries(points)
      .filter(([, [x, y]]) => {
        const hit = document.elementFromPoint(x, y);
        return !hit || !el.contains(hit);
      })
      .map(([name]) => name);
  });
}

describe('conversations and their versions', () => {
  const suite = suiteStack();
  let stack;
  before(() => ({ stack } = suite));

  const open = () => suite.open('en-US');

  /** `GET /v1/conversations/{id}` as the engine answers it now: its status. */
  async function engineStatus(id) {
    const response = await fetch(new URL(`/v1/conversations/${encodeURIComponent(id)}`, stack.url), {
      headers: { Authorization: `Bearer ${stack.token}` },
    });
    return response.status;
  }

  async function ask(page, text, answer) {
    await sendMessage(page, text);
    await page.getByRole('log', { name: 'Messages' }).getByText(answer).waitFor({ timeout: 15_000 });
    await page.getByTestId('assistant-message').last().getByTestId('usage').waitFor({ timeout: 15_000 });
  }

  test('rename inline, search (Chinese too), delete with undo', async () => {
    await pushReplies(stack.providerUrl, [textReply(['Oslo is ', 'cold in March.']), textReply(['调用 RenewSubscription ', '接口续订。'])]);
    const { page, errors } = await open();
    await ask(page, 'Plan a trip to Oslo', 'Oslo is cold in March.');
    await page.getByRole('button', { name: 'New conversation' }).click();
    await ask(page, '包周期续订的接口是？', '调用 RenewSubscription 接口续订。');

    const sidebar = page.getByRole('navigation', { name: 'Conversations' });
    const items = sidebar.getByTestId('conversation-item');
    const oslo = sidebar.getByRole('button', { name: 'Plan a trip to Oslo', exact: true });
    await oslo.waitFor({ timeout: 10_000 });
    const osloId = await oslo.getAttribute('data-conversation-id');

    // Rename from the menu; Enter saves.
    await sidebar.getByRole('button', { name: 'Actions for Plan a trip to Oslo' }).click();
    await sidebar.getByRole('menuitem', { name: 'Rename' }).click();
    const field = sidebar.getByRole('textbox', { name: 'New name for Plan a trip to Oslo' });
    assert.ok(await field.evaluate((el) => el === document.activeElement), 'the field has the focus');
    await field.fill('Oslo trip');
    await field.press('Enter');
    const renamed = sidebar.getByRole('button', { name: 'Oslo trip', exact: true });
    await renamed.waitFor();
    // F2, then Escape: nothing changes.
    await renamed.press('F2');
    await sidebar.getByRole('textbox', { name: 'New name for Oslo trip' }).fill('Not this');
    await page.keyboard.press('Escape');
    await renamed.waitFor();
    await page.reload({ waitUntil: 'load' });
    await renamed.waitFor({ timeout: 10_000 });
    assert.equal(await sidebar.getByText('Not this').count(), 0);

    // Search on the engine: a Chinese word inside a longer run, then English from an answer.
    const search = sidebar.getByRole('searchbox', { name: 'Search conversations' });
    await search.fill('续订');
    await sidebar.getByTestId('conversation-snippet').locator('mark', { hasText: '续订' }).first().waitFor({ timeout: 10_000 });
    assert.equal(await items.count(), 1);
    assert.match((await items.first().textContent()) ?? '', /包周期续订的接口是？/);
    await search.fill('march');
    await sidebar.getByRole('button', { name: /^Oslo trip/ }).waitFor({ timeout: 10_000 });
    await sidebar.getByTestId('conversation-snippet').locator('mark', { hasText: /march/i }).waitFor();
    assert.equal(await items.count(), 1);
    await page.screenshot({ path: path.join(RESULTS_DIR, 'conversations-search.png') });
    await search.press('Escape');
    await sidebar.getByRole('button', { name: /^包周期续订/ }).waitFor();
    assert.equal(await items.count(), 2);

    // Delete, undo: nothing is deleted.
    const deleteOslo = async () => {
      await sidebar.getByRole('button', { name: 'Actions for Oslo trip' }).click();
      await sidebar.getByRole('menuitem', { name: 'Delete' }).click();
      await renamed.waitFor({ state: 'detached' });
    };
    await deleteOslo();
    const notice = sidebar.getByTestId('undo-notice');
    assert.match((await notice.textContent()) ?? '', /“Oslo trip” deleted/);
    await page.screenshot({ path: path.join(RESULTS_DIR, 'conversations-undo.png') });
    await notice.getByRole('button', { name: 'Undo' }).click();
    await renamed.waitFor();
    assert.equal(await engineStatus(osloId), 200);

    // Delete, and let the undo time pass: gone on the engine too.
    await deleteOslo();
    assert.equal(await engineStatus(osloId), 200, 'not deleted while it can be undone');
    await notice.waitFor({ state: 'detached', timeout: 15_000 });
    assert.equal(await engineStatus(osloId), 404);
    await page.reload({ waitUntil: 'load' });
    await sidebar.getByRole('button', { name: /^包周期续订/ }).waitFor({ timeout: 10_000 });
    assert.equal(await items.count(), 1);
    assert.deepEqual(errors, []);
  });

  test('regenerate keeps the earlier answer as a version; edit-and-resend starts a branch', async () => {
    await pushReplies(stack.providerUrl, [textReply(['First ', 'answer.']), textReply(['Second ', 'answer.']), textReply(['Answer to the edit.'])]);
    const { page, errors } = await open();
    await page.getByRole('button', { name: 'New conversation' }).click();
    await ask(page, 'Tell me something', 'First answer.');
    const log = page.getByRole('log', { name: 'Messages' });

    await log.getByRole('button', { name: 'Regenerate' }).click();
    await log.getByText('Second answer.').waitFor({ timeout: 15_000 });
    await log.getByTestId('branch-position').filter({ hasText: '2 / 2' }).waitFor({ timeout: 10_000 });
    assert.equal(await log.getByText('First answer.').count(), 0, 'the earlier answer is not shown');
    assert.equal(await log.getByTestId('assistant-message').count(), 1);
    // The model was asked the question again, without the answer it replaces.
    const asked = JSON.stringify((await modelCalls(stack.providerUrl)).at(-1));
    assert.ok(asked.includes('Tell me something') && !asked.includes('First answer.'), asked);
    await page.screenshot({ path: path.join(RESULTS_DIR, 'conversations-regenerated.png') });

    // Back to the first version; it stays shown after a reload.
    await log.getByRole('button', { name: 'Previous version' }).click();
    await log.getByText('First answer.').waitFor({ timeout: 10_000 });
    await log.getByTestId('branch-position').filter({ hasText: '1 / 2' }).waitFor();
    await page.reload({ waitUntil: 'load' });
    await log.getByText('First answer.').waitFor({ timeout: 15_000 });
    assert.equal(await log.getByText('Second answer.').count(), 0);

    // Edit the question and resend it: a new branch, the question's versions counted.
    await log.getByTestId('user-message').getByRole('button', { name: 'Edit' }).click();
    const edit = log.getByRole('textbox', { name: 'Edit your message' });
    await edit.fill('Tell me something else');
    await edit.press('Enter');
    await log.getByText('Answer to the edit.').waitFor({ timeout: 15_000 });
    const question = log.getByTestId('user-message');
    await question.getByTestId('branch-position').filter({ hasText: '2 / 2' }).waitFor({ timeout: 10_000 });
    assert.match((await question.textContent()) ?? '', /Tell me something else/);
    assert.equal(await log.getByText('First answer.').count(), 0);
    // Back to the first question: its branch shows its newest answer.
    await question.getByRole('button', { name: 'Previous version' }).click();
    await log.getByText('Second answer.').waitFor({ timeout: 10_000 });
    assert.match((await question.textContent()) ?? '', /Tell me something1 \/ 2/);
    assert.deepEqual(errors, []);
  });

  test('Edit opens its box wholly in the log\'s view, clear of the header and the composer', async () => {
    const messages = [];
    for (let t = 1; t <= 14; t++) {
      messages.push({ role: 'user', content: `Question ${t}: how does stage ${t} handle a late batch?` });
      messages.push({ role: 'assistant', content: `Answer ${t}: ${'A late batch costs a comparison, or a merge when it is very late. '.repeat(6)}` });
    }
    const response = await fetch(new URL('/v1/conversations/import', stack.url), {
      method: 'POST',
      headers: { Authorization: `Bearer ${stack.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        schema_version: '1.0',
        meta: { tessera: { title: 'Stages' } },
        session: { session_id: 'edit-in-view', messages, task_state: { todo_list: { tasks: [] } } },
        evidences: {},
        context_blocks: [],
      }),
    });
    assert.equal(response.status, 201, await response.text());
    const { page, errors } = await open();
    await page.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: 'Stages', exact: true }).click();
    const log = page.getByRole('log', { name: 'Messages' });
    await log.getByText('Answer 14:').waitFor({ timeout: 15_000 });
    assert.ok(await log.evaluate((el) => el.scrollHeight > 3 * el.clientHeight), 'the conversation scrolls');

    // A question near the top, its Edit just under the header (the question above it, out of
    // sight); one near the end, its Edit just over the composer (the box is taller than the
    // question: it reaches below).
    for (const [n, where] of [
      [2, 'top'],
      [13, 'bottom'],
    ]) {
      const question = log.getByTestId('user-message').filter({ hasText: `Question ${n}:` });
      if (n === 2) {
        await log.evaluate((el) => (el.scrollTop = 0));
      }
      await question.waitFor({ timeout: 10_000 });
      await question.evaluate((el, at) => {
        const list = el.closest('[role="log"]');
        const view = list.getBoundingClientRect();
        const edit = el.querySelector('[data-testid="edit-message"]').getBoundingClientRect();
        list.scrollTop += at === 'top' ? edit.top - view.top - 2 : edit.bottom - view.bottom + 2;
      }, where);
      await page.waitForTimeout(300);
      await question.getByRole('button', { name: 'Edit' }).click();
      const box = log.getByTestId('user-message-edit');
      const field = box.getByRole('textbox', { name: 'Edit your message' });
      await field.waitFor();
      await page.waitForTimeout(300);
      assert.ok(await field.evaluate((el) => el === document.activeElement), 'the field has the focus');
      const seen = await box.evaluate((el) => {
        const view = el.closest('[role="log"]').getBoundingClientRect();
        const r = el.getBoundingClientRect();
        // The box's top and bottom edges, and each corner of its field and buttons, are the
        // box's own under the pointer (not the header's, the composer's or nothing).
        const parts = [el.querySelector('textarea'), ...el.querySelectorAll('button')].flatMap((part) => {
          const p = part.getBoundingClientRect();
          return [
            [p.left + 2, p.top + 2],
            [p.right - 2, p.top + 2],
            [p.left + 2, p.bottom - 2],
            [p.right - 2, p.bottom - 2],
          ];
        });
        const edges = [
          [r.left + r.width / 2, r.top + 1],
          [r.left + r.width / 2, r.bottom - 1],
        ];
        const covered = [...edges, ...parts].filter(([x, y]) => !el.contains(document.elementFromPoint(x, y))).map((p) => p.map(Math.round));
        return { view: [view.top, view.bottom], box: [r.top, r.bottom], covered };
      });
      assert.ok(seen.box[0] >= seen.view[0] && seen.box[1] <= seen.view[1], `question ${n}: the box ${JSON.stringify(seen.box)} is within the log's view ${JSON.stringify(seen.view)}`);
      assert.deepEqual(seen.covered, [], `question ${n}: nothing covers the box (${JSON.stringify(seen)})`);
      await page.screenshot({ path: path.join(RESULTS_DIR, `conversations-edit-${where}.png`) });
      await field.press('Escape');
      await box.waitFor({ state: 'detached' });
    }
    assert.deepEqual(errors, []);
  });

  test('a scrolled list: every "…" button and every item of its menu are in reach, lower rows too', async () => {
    for (let n = 1; n <= 28; n++) {
      const title = `Trip ${String(n).padStart(2, '0')}`;
      const response = await fetch(new URL('/v1/conversations/import', stack.url), {
        method: 'POST',
        headers: { Authorization: `Bearer ${stack.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          schema_version: '1.0',
          meta: { tessera: { title } },
          session: { session_id: `trip-${n}`, messages: [{ role: 'user', content: `${title}?` }], task_state: { todo_list: { tasks: [] } } },
          evidences: {},
          context_blocks: [],
        }),
      });
      assert.equal(response.status, 201, await response.text());
    }
    const overlay = await overlayScrollbarBrowser();
    try {
      for (const viewport of [
        { width: 800, height: 600 },
        { width: 1280, height: 900 },
      ]) {
        const { context, page, errors } = await openPage(overlay.browser, stack.url);
        await page.setViewportSize(viewport);
        const sidebar = page.getByRole('navigation', { name: 'Conversations' });
        const list = sidebar.getByTestId('conversation-list');
        await sidebar.getByRole('button', { name: 'Trip 01', exact: true }).waitFor({ timeout: 10_000 });
        assert.ok(await list.evaluate((el) => el.scrollHeight > el.clientHeight + 100), 'the list scrolls');

        // A row at the top, and the lowest row once the list is scrolled to its end.
        for (const title of ['Trip 28', 'Trip 01']) {
          const row = sidebar.getByTestId('conversation-row').filter({ has: page.getByRole('button', { name: title, exact: true }) });
          await row.scrollIntoViewIfNeeded();
          await row.hover();
          const button = row.getByRole('button', { name: `Actions for ${title}` });
          assert.deepEqual(await outOfReach(button), [], `${viewport.width}×${viewport.height}: the "…" of ${title} is under the pointer everywhere on it`);
          // Clicked near its right edge, where the scrollbar lay.
          const box = await button.boundingBox();
          await page.mouse.click(box.x + box.width - 3, box.y + box.height / 2);
          const menu = sidebar.getByRole('menu', { name: `Actions for ${title}` });
          await menu.waitFor();
          const m = await menu.boundingBox();
          assert.ok(m.y >= 0 && m.y + m.height <= viewport.height && m.x >= 0 && m.x + m.width <= viewport.width, `the menu of ${title} is in the window: ${JSON.stringify(m)}`);
          const items = menu.getByRole('menuitem');
          assert.equal(await items.count(), 7);
          for (const item of await items.all()) {
            assert.deepEqual(await outOfReach(item), [], `${title}: "${await item.textContent()}" is under the pointer`);
          }
          if (title === 'Trip 01' && viewport.width === 800) await page.screenshot({ path: path.join(SCREENS_DIR, 'conversations-lower-menu.png') });
          // By keyboard too: the last item is Delete, focused and shown.
          await page.keyboard.press('End');
          const last = menu.getByRole('menuitem', { name: 'Delete' });
          assert.ok(await last.evaluate((el) => el === document.activeElement), 'End reaches Delete');
          await page.keyboard.press('Escape');
          await menu.waitFor({ state: 'detached' });
          assert.ok(await button.evaluate((el) => el === document.activeElement), 'Escape gives the focus back to the button');
        }

        // The lowest row's Delete, by mouse, deletes (and is undone).
        const lowest = sidebar.getByRole('button', { name: 'Actions for Trip 01' });
        await lowest.click();
        await sidebar.getByRole('menu', { name: 'Actions for Trip 01' }).getByRole('menuitem', { name: 'Delete' }).click();
        const notice = sidebar.getByTestId('undo-notice');
        await notice.waitFor();
        await notice.getByRole('button', { name: 'Undo' }).click();
        await sidebar.getByRole('button', { name: 'Trip 01', exact: true }).waitFor();
        assert.deepEqual(errors, []);
        await context.close();
      }
    } finally {
      await overlay.stop();
    }
  });
});
