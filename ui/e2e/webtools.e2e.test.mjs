// End-to-end: the web UI's own front-end tools (seed 000 §4.5.5) with a real `tessera serve`
// and the scripted provider. The window announces highlight_element and display_overlay for
// the conversation it shows; the scripted model calls them; the window runs each call once and
// the model's next request carries the window's result.

import assert from 'node:assert/strict';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { RESULTS_DIR, openPage, sendMessage, suiteStack } from './harness.mjs';
import { modelCalls, pushReplies, textReply, toolCallReply } from './scripted.mjs';

/** What the model read as the result of its last tool call, in request `call`. */
function lastToolResult(call) {
  const messages = call.body?.messages ?? JSON.parse(call.body ?? '{}').messages;
  const tool = [...messages].reverse().find((m) => m.role === 'tool');
  assert.ok(tool, `a tool message in ${JSON.stringify(messages)}`);
  return typeof tool.content === 'string' ? tool.content : JSON.stringify(tool.content);
}

function offeredTools(call) {
  const body = typeof call.body === 'string' ? JSON.parse(call.body) : call.body;
  return (body.tools ?? []).map((t) => t.function?.name);
}

describe('front-end tools in the web UI', () => {
  const suite = suiteStack();
  const { contexts } = suite;
  let stack;
  let browser;
  before(() => ({ stack, browser } = suite));

  test('the model highlights the message box; the result tells it only that it was found; a reload does not run it again', async () => {
    await pushReplies(stack.providerUrl, [
      toolCallReply('call_hl', 'highlight_element', { selector: '#composer-input', style: 'outline', duration: 20000 }),
      textReply(['There it is.']),
    ]);
    const opened = await openPage(browser, stack.url, 'en-US');
    contexts.push(opened.context);
    const { page, errors } = opened;
    const before = (await modelCalls(stack.providerUrl)).length;
    await sendMessage(page, 'Where do I type?');

    const composer = page.getByRole('textbox', { name: 'Message' });
    await page.locator('#composer-input[data-tessera-highlight="outline"]').waitFor({ state: 'attached', timeout: 15_000 });
    const log = page.getByRole('log', { name: 'Messages' });
    await log.getByText('There it is.').waitFor({ timeout: 15_000 });
    assert.equal(await composer.getAttribute('data-tessera-highlight'), 'outline');
    await page.screenshot({ path: path.join(RESULTS_DIR, 'webtools-highlight.png') });

    const calls = (await modelCalls(stack.providerUrl)).slice(before);
    assert.equal(calls.length, 2);
    assert.ok(offeredTools(calls[0]).includes('highlight_element'), `offered: ${offeredTools(calls[0])}`);
    assert.ok(offeredTools(calls[0]).includes('display_overlay'));
    const result = lastToolResult(calls[1]);
    assert.match(result, /"found":\s*true/);
    // Nothing of the page's text reaches the model.
    assert.doesNotMatch(result, /Message|textarea/);

    // Replayed from the store after a reload, the answered call is not run again.
    await page.reload({ waitUntil: 'load' });
    await log.getByText('There it is.').waitFor({ timeout: 15_000 });
    await page.waitForTimeout(1_000);
    assert.equal(await page.locator('[data-tessera-highlight]').count(), 0);
    assert.deepEqual(errors, []);
  });

  test('the model shows a note in a dialog; Escape closes it and the keyboard is back in the message box', async () => {
    await pushReplies(stack.providerUrl, [
      toolCallReply('call_ov', 'display_overlay', { overlayData: 'Settings are behind the gear button.', style: 'note' }),
      textReply(['Shown.']),
    ]);
    const opened = await openPage(browser, stack.url, 'en-US');
    contexts.push(opened.context);
    const { page, errors } = opened;
    await page.getByRole('button', { name: 'New conversation' }).click();
    const before = (await modelCalls(stack.providerUrl)).length;
    await sendMessage(page, 'Where are the settings?');

    const dialog = page.getByRole('dialog', { name: 'Shown by the assistant' });
    await dialog.waitFor({ timeout: 15_000 });
    assert.match((await dialog.textContent()) ?? '', /Settings are behind the gear button\./);
    assert.ok(await dialog.getByRole('button', { name: 'Close' }).evaluate((el) => el === document.activeElement), 'Close has the focus');
    await page.screenshot({ path: path.join(RESULTS_DIR, 'webtools-overlay.png') });
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached', timeout: 5_000 });
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'composer-input');

    await page.getByRole('log', { name: 'Messages' }).getByText('Shown.').waitFor({ timeout: 15_000 });
    const calls = (await modelCalls(stack.providerUrl)).slice(before);
    assert.equal(calls.length, 2);
    assert.match(lastToolResult(calls[1]), /"shown":\s*true/);
    assert.deepEqual(errors, []);
  });

  test('with reduced motion, a pulse is a steady outline', async () => {
    await pushReplies(stack.providerUrl, [
      toolCallReply('call_calm', 'highlight_element', { selector: '[data-testid="open-settings"]', style: 'pulse', duration: 20000 }),
      textReply(['That gear.']),
    ]);
    const opened = await openPage(browser, stack.url, 'en-US');
    contexts.push(opened.context);
    const { page, errors } = opened;
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await page.getByRole('button', { name: 'New conversation' }).click();
    await sendMessage(page, 'Which button opens the settings?');
    const gear = page.getByTestId('open-settings');
    await page.locator('[data-testid="open-settings"][data-tessera-highlight]').waitFor({ state: 'attached', timeout: 15_000 });
    assert.equal(await gear.getAttribute('data-tessera-highlight'), 'outline');
    assert.equal(await gear.evaluate((el) => getComputedStyle(el).animationName), 'none');
    await page.getByRole('log', { name: 'Messages' }).getByText('That gear.').waitFor({ timeout: 15_000 });
    const calls = await modelCalls(stack.providerUrl);
    const result = lastToolResult(calls.at(-1));
    assert.match(result, /"reducedMotion":\s*true/);
    assert.match(result, /"found":\s*true/);
    assert.doesNotMatch(result, /Open settings/);
    assert.deepEqual(errors, []);
  });
});
