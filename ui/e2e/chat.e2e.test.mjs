// End-to-end: chatting through the built UI with a real `tessera serve` whose model is the
// scripted provider (crates/tessera-testkit, `tessera-scripted-provider`: the real OpenAI
// chat-completions SSE wire). Needs TESSERA_BIN and the provider binary beside it (or
// TESSERA_SCRIPTED_PROVIDER_BIN); see e2e/scripted.mjs.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { RESULTS_DIR, pixelOf, sendMessage, suiteStack } from './harness.mjs';
import { errorReply, modelCalls, pushReplies, textReply, toolCallReply } from './scripted.mjs';

describe('chatting with the engine', () => {
  const suite = suiteStack();
  let stack;
  before(() => ({ stack } = suite));

  const open = (locale) => suite.open(locale);

  test('a streamed answer appears as Markdown, with highlighted code to copy, and the conversation is listed', async () => {
    await pushReplies(stack.providerUrl, [textReply(['Hello ', '**world**', '\n\n```js\nconst x = 1;\n```\n'], 30)]);
    const { page, errors } = await open('en-US');
    await sendMessage(page, 'Say hello');

    const log = page.getByRole('log', { name: 'Messages' });
    const answer = log.getByTestId('assistant-message').last();
    await answer.locator('strong', { hasText: 'world' }).waitFor({ timeout: 15_000 });
    await answer.getByTestId('usage').waitFor({ timeout: 15_000 });
    assert.equal(await log.getByTestId('user-message').textContent(), 'YouSay hello');
    assert.match((await answer.locator('pre code').textContent()) ?? '', /const x = 1;/);
    assert.ok((await answer.locator('pre code .hljs-keyword').count()) > 0, 'the code is highlighted');
    assert.ok(await answer.getByRole('button', { name: 'Copy code' }).isVisible());

    const item = page.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: 'Say hello', exact: true });
    await item.waitFor({ timeout: 10_000 });
    assert.equal(await item.getAttribute('aria-current'), 'page');
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Say hello');

    // What the model received is the person's message.
    const calls = await modelCalls(stack.providerUrl);
    assert.ok(JSON.stringify(calls.at(-1)).includes('Say hello'));
    await page.screenshot({ path: path.join(RESULTS_DIR, 'chat-answer.png') });
    assert.deepEqual(errors, []);
  });

  test('a long answer is parsed in a worker, off the page: its table, coloured code and math all end up drawn', async () => {
    const sections = Array.from({ length: 40 }, (_, i) => `## Part ${i}\n\nSome *text* for part ${i}, with \`code\`.\n\n`);
    const rest = ['| name | value |\n| --- | --- |\n| alpha | 1 |\n', '| beta | 2 |\n\n', '```python\ndef double(x):\n', '    return x * 2\n', '```\n\n', 'The area is $x^2$.\n'];
    await pushReplies(stack.providerUrl, [textReply([...sections, ...rest], 5)]);
    const { page, errors } = await open('en-US');
    await page.getByRole('button', { name: 'New conversation' }).click();
    await sendMessage(page, 'Write a long structured answer');
    const answer = page.getByRole('log', { name: 'Messages' }).getByTestId('assistant-message').last();
    await answer.getByTestId('usage').waitFor({ timeout: 30_000 });
    // Attached, not visible: blocks scrolled out of view are not laid out (content-visibility).
    await answer.locator('table td', { hasText: 'beta' }).waitFor({ state: 'attached', timeout: 10_000 });
    await answer.locator('pre code .hljs-keyword', { hasText: 'def' }).waitFor({ state: 'attached', timeout: 10_000 });
    await answer.locator('math msup').waitFor({ state: 'attached', timeout: 10_000 });
    assert.equal(await answer.locator('h2').count(), 40);
    assert.equal(await answer.locator('table tbody tr').count(), 2);
    // Every block drawn from its tree: none left as the text it was while it was being parsed.
    assert.equal(await answer.locator('.markdown-pending').count(), 0);
    const workers = page.workers().map((w) => w.url());
    assert.ok(
      workers.some((url) => /\/assets\/markdownWorker-[\w-]+\.js$/.test(url)),
      `the Markdown is parsed in the markdown worker (the page's workers: ${workers.join(', ') || 'none'})`,
    );
    assert.deepEqual(errors, []);
  });

  test('a picture attached in the composer reaches the model as an image and shows on the message with its pixels', async () => {
    // 3×2, every pixel rgb(0, 160, 80).
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAIAAAASFvFNAAAAD0lEQVR4nGNgWBAARXAWADZ0BaFEM/vfAAAAAElFTkSuQmCC', 'base64');
    await pushReplies(stack.providerUrl, [textReply(['A green picture.'])]);
    const { page, errors } = await open('en-US');
    await page.getByRole('button', { name: 'New conversation' }).click();
    await page.getByTestId('attach-input').setInputFiles({ name: 'green.png', mimeType: 'image/png', buffer: png });
    await page.getByTestId('composer-file').waitFor();
    await sendMessage(page, 'What colour is this?');
    await page.getByText('A green picture.').waitFor({ timeout: 15_000 });

    const calls = await modelCalls(stack.providerUrl);
    // This model is not known to take images: it gets the text and a note, never the bytes
    // (a model that takes them gets the image: crates/tessera-cli/tests/all/serve_attachments.rs).
    const user = calls.at(-1).body.messages.filter((m) => m.role === 'user').at(-1);
    const texts = user.content.map((p) => p.text ?? '');
    assert.equal(texts[0], 'What colour is this?');
    assert.ok(texts.some((t) => t.includes('An image was attached here, but scripted-model does not accept images')), JSON.stringify(user.content));
    assert.ok(!JSON.stringify(user).includes(png.toString('base64')));

    // Reloaded, the stored message shows the picture, drawn from the store.
    await page.reload({ waitUntil: 'load' });
    const thumb = page.getByTestId('user-message').getByTestId('tool-image');
    await thumb.waitFor({ timeout: 15_000 });
    await page.waitForFunction(() => {
      const img = document.querySelector('[data-testid="user-message"] [data-testid="tool-image"]');
      return img instanceof HTMLImageElement && img.complete && img.naturalWidth === 3;
    });
    assert.deepEqual(await pixelOf(thumb, 2, 1), [0, 160, 80]);
    await page.screenshot({ path: path.join(RESULTS_DIR, 'chat-attachment.png') });
    assert.deepEqual(errors, []);
  });

  test('a failed answer offers Retry, which answers the same message again', async () => {
    await pushReplies(stack.providerUrl, [errorReply(400, 'the request was refused'), textReply(['Second try worked.'])]);
    const { page, errors } = await open('en-US');
    await page.getByRole('button', { name: 'New conversation' }).click();
    await sendMessage(page, 'Try this');
    const failed = page.getByTestId('run-error');
    await failed.waitFor({ timeout: 15_000 });
    const retry = failed.getByRole('button', { name: 'Retry' });
    await page.screenshot({ path: path.join(RESULTS_DIR, 'chat-retry.png') });
    await retry.click();
    await page.getByText('Second try worked.').waitFor({ timeout: 15_000 });
    const asked = (await modelCalls(stack.providerUrl)).filter((c) => JSON.stringify(c).includes('Try this'));
    assert.equal(asked.length, 2, 'the same message was answered again');
    // One message of the person's, not two.
    assert.equal(await page.getByTestId('user-message').count(), 1);
    assert.deepEqual(
      errors.filter((e) => !/status of 502/.test(e)),
      [],
    );
  });

  test('a long answer is followed by pages, and a person who scrolled up to read is left there', async () => {
    const lines = Array.from({ length: 160 }, (_, i) => `Line ${i} of a long answer.\n\n`);
    await pushReplies(stack.providerUrl, [textReply(lines, 80)]);
    const { page, errors } = await open('en-US');
    await page.getByRole('button', { name: 'New conversation' }).click();
    await sendMessage(page, 'Write many lines');
    const log = page.getByRole('log', { name: 'Messages' });
    // Measured once the conversation shows (its pane is drawn a frame after the message is sent).
    await log.getByTestId('log-end').waitFor({ state: 'attached', timeout: 15_000 });
    const geometry = () =>
      log.evaluate((el) => {
        const end = el.querySelector('[data-testid="log-end"]');
        const view = el.getBoundingClientRect();
        return { scrollTop: el.scrollTop, viewBottom: view.bottom, contentEnd: end ? end.getBoundingClientRect().top : NaN };
      });
    // While it streams the newest line stays in view, and the log moves by jumps, not at every line.
    const tops = new Set();
    for (let i = 0; i < 40; i++) {
      await page.waitForTimeout(100);
      const g = await geometry();
      tops.add(g.scrollTop);
      assert.ok(g.contentEnd <= g.viewBottom + 60, `the newest text is in view (${JSON.stringify(g)})`);
    }
    assert.ok(tops.size > 1, 'the log followed the answer');
    assert.ok(tops.size <= 15, `the log jumped ${tops.size} times in 40 looks: by pages, not by lines`);

    // Scrolled up, the person stays where they are while the answer goes on.
    await log.evaluate((el) => el.scrollTo({ top: 0 }));
    await page.waitForTimeout(600);
    assert.equal((await geometry()).scrollTop, 0, 'not pulled back down');
    await log.getByTestId('assistant-message').last().getByTestId('usage').waitFor({ timeout: 30_000 });
    assert.deepEqual(errors, []);
  });

  test('a page reload mid-run picks the stream up from the event log', async () => {
    const pieces = Array.from({ length: 12 }, (_, i) => `part${i} `);
    await pushReplies(stack.providerUrl, [textReply(pieces, 250)]);
    const { page, errors } = await open('en-US');
    await page.getByRole('button', { name: 'New conversation' }).click();
    await sendMessage(page, 'Count slowly');
    const log = page.getByRole('log', { name: 'Messages' });
    await log.getByText('part1', { exact: false }).waitFor({ timeout: 15_000 });
    assert.ok(await page.getByRole('button', { name: 'Stop' }).isVisible(), 'Stop is offered while the run answers');

    await page.reload({ waitUntil: 'load' });
    await page.getByTestId('app-shell').waitFor();
    // The same conversation, its question from the store, the answer continuing live.
    await log.getByTestId('user-message').filter({ hasText: 'Count slowly' }).waitFor({ timeout: 15_000 });
    const answer = log.getByTestId('assistant-message').last();
    await answer.getByTestId('usage').waitFor({ timeout: 20_000 });
    assert.equal((await answer.locator('.markdown').textContent())?.trim(), pieces.join('').trim(), 'every piece once, in order');
    assert.equal(await log.getByTestId('assistant-message').count(), 1);
    assert.deepEqual(errors, []);
  });

  test('Stop cancels a running answer and keeps what arrived', async () => {
    const pieces = Array.from({ length: 40 }, (_, i) => `slow${i} `);
    await pushReplies(stack.providerUrl, [textReply(pieces, 250)]);
    const { page, errors } = await open('en-US');
    await sendMessage(page, 'Take your time');
    const log = page.getByRole('log', { name: 'Messages' });
    await log.getByText('slow1', { exact: false }).waitFor({ timeout: 15_000 });
    await page.getByRole('button', { name: 'Stop' }).click();
    await log.getByTestId('run-cancelled').waitFor({ timeout: 15_000 });
    assert.match((await log.getByTestId('assistant-message').last().textContent()) ?? '', /slow0 slow1/);
    assert.ok(!((await log.textContent()) ?? '').includes('slow39'));
    await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'detached', timeout: 10_000 });
    assert.deepEqual(errors, []);
  });

  test('Esc stops a running answer too, and a finished answer can be copied', async () => {
    const pieces = Array.from({ length: 40 }, (_, i) => `esc${i} `);
    await pushReplies(stack.providerUrl, [textReply(pieces, 250)]);
    const { page, errors } = await open('en-US');
    await sendMessage(page, 'Take your time again');
    const log = page.getByRole('log', { name: 'Messages' });
    await log.getByText('esc1', { exact: false }).waitFor({ timeout: 15_000 });
    await page.keyboard.press('Escape');
    await log.getByTestId('run-cancelled').waitFor({ timeout: 15_000 });
    assert.ok(!((await log.textContent()) ?? '').includes('esc39'));
    const copy = log.getByTestId('copy-answer').last();
    await copy.click();
    await page.waitForFunction(() => {
      const buttons = document.querySelectorAll('[data-testid="copy-answer"]');
      return buttons[buttons.length - 1]?.textContent === 'Copied';
    });
    assert.deepEqual(errors, []);
  });

  test('a tool call shows as a card with its arguments and result', async () => {
    await pushReplies(stack.providerUrl, [toolCallReply('call_calc', 'calculator', { expression: '6*7' }), textReply(['It is 42.'])]);
    const { page, errors } = await open('en-US');
    await sendMessage(page, 'What is 6*7?');
    const card = page.getByRole('region', { name: 'Tool calculator' });
    await card.waitFor({ timeout: 15_000 });
    await page.getByText('It is 42.').waitFor({ timeout: 15_000 });
    assert.equal(await card.getAttribute('data-phase'), 'success');
    await card.locator('summary').click(); // finished cards start folded
    assert.match((await card.getByTestId('tool-arguments').textContent()) ?? '', /"expression": "6\*7"/);
    assert.match((await card.getByTestId('tool-result').textContent()) ?? '', /42/);
    assert.deepEqual(errors, []);
  });
  test('a form: a value the engine refuses is shown on its field, the form survives a reload, the fixed answer resumes the run', async () => {
    const form = {
      title: 'Your trip',
      description: 'Where and how long',
      schema: {
        type: 'object',
        required: ['email', 'nights'],
        properties: { email: { type: 'string', format: 'email', title: 'Email' }, nights: { type: 'integer', minimum: 1, title: 'Nights' } },
      },
    };
    await pushReplies(stack.providerUrl, [toolCallReply('call_f', 'request_form', form), textReply(['Booked for ', '2 nights.'])]);
    const { page, errors } = await open('en-US');
    await page.getByRole('button', { name: 'New conversation' }).click();
    await sendMessage(page, 'Book a room');
    let card = page.getByRole('form', { name: 'Your trip' });
    await card.waitFor({ timeout: 15_000 });
    assert.equal(await card.getByTestId('form-requester').textContent(), 'Asked by Assistant');

    // Pending when the page loads: still there, and answerable.
    await page.reload({ waitUntil: 'load' });
    card = page.getByRole('form', { name: 'Your trip' });
    await card.waitFor({ timeout: 15_000 });

    const email = card.getByRole('textbox', { name: 'Email' });
    await email.fill('a..b@example.com'); // plausible here, refused by the engine's check
    await card.getByRole('spinbutton', { name: 'Nights' }).fill('2');
    await email.press('Enter');
    await card.getByText('must be a valid email address').waitFor({ timeout: 10_000 });
    assert.equal(await email.getAttribute('aria-invalid'), 'true');
    assert.ok(await email.evaluate((el) => el === document.activeElement), 'the refused field has the focus');
    assert.equal((await modelCalls(stack.providerUrl)).filter((c) => JSON.stringify(c).includes('Book a room')).length, 1, 'the run still waits');

    await email.fill('ada@example.com');
    await email.press('Enter');
    await page.getByText('Booked for 2 nights.').waitFor({ timeout: 15_000 });
    await card.waitFor({ state: 'detached', timeout: 10_000 });
    const tool = page.getByRole('region', { name: 'Form: Your trip' });
    assert.equal(await tool.getAttribute('data-phase'), 'success');
    // What was answered reads as the form's labels and values, not JSON.
    const summary = tool.getByRole('region', { name: 'Your answers: Your trip' });
    assert.match((await summary.textContent()) ?? '', /Emailada@example\.comNights2/);
    await page.screenshot({ path: path.join(RESULTS_DIR, 'chat-form-answered.png') });
    // Chromium logs the refused answer (the expected 422) as a failed resource; nothing else.
    assert.deepEqual(
      errors.filter((e) => !/status of 422 \(Unprocessable Entity\)/.test(e)),
      [],
    );
    assert.equal(errors.length, 1);
  });

  test('consent: the dialog shows the exact call; Escape decides nothing; Deny never runs the tool', async () => {
    await pushReplies(stack.providerUrl, [toolCallReply('call_g', 'test_guarded_write', { ms: 0, tag: 'e2e' }), textReply(['Not written.'])]);
    const { page, errors } = await open('en-US');
    await page.getByRole('button', { name: 'New conversation' }).click();
    await sendMessage(page, 'Write the log');
    const dialog = page.getByRole('dialog', { name: 'Allow the tool test_guarded_write to run?' });
    await dialog.waitFor({ timeout: 15_000 });
    assert.deepEqual(JSON.parse((await dialog.getByTestId('consent-arguments').textContent()) ?? ''), { ms: 0, tag: 'e2e' });
    assert.equal(await dialog.getByTestId('consent-touches').textContent(), 'writes test-tool-log');
    assert.equal(await dialog.getByTestId('consent-risk').textContent(), 'Medium');
    await page.screenshot({ path: path.join(RESULTS_DIR, 'chat-consent.png') });

    // Focus stays in the dialog.
    for (let i = 0; i < 8; i++) {
      await page.keyboard.press('Tab');
      assert.ok(await dialog.evaluate((el) => el.contains(document.activeElement)), 'focus stays inside the dialog');
    }
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    const reopen = page.getByRole('button', { name: 'Review the permission request for test_guarded_write' });
    assert.ok(await reopen.isVisible(), 'nothing decided: the request still waits');
    await reopen.click();
    await dialog.getByRole('button', { name: 'Deny' }).click();
    await page.getByText('Not written.').waitFor({ timeout: 15_000 });
    await dialog.waitFor({ state: 'detached' });
    const tool = page.getByRole('region', { name: 'Tool test_guarded_write' });
    assert.equal(await tool.getAttribute('data-phase'), 'denied');
    assert.ok(!existsSync(path.join(stack.dataDir, 'test-tool-runs.log')), 'the tool never ran');
    assert.deepEqual(errors, []);
  });
});
