// End-to-end: a tool that returns an image (the test tool `test_image`: tessera-with-test-tools, as
// the harness starts serve) shows it in its tool card, loaded through the API client with the
// token, before and after a reload; the scripted model takes no images, so it got a note.

import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { RESULTS_DIR, launchBrowser, openPage, sendMessage, startStack } from './harness.mjs';
import { modelCalls, pushReplies, textReply, toolCallReply } from './scripted.mjs';

/** The colour at the centre of a shown image, drawn onto a canvas in the page. */
async function centreColour(image) {
  return image.evaluate((img) => {
    const canvas = document.createElement('canvas');
    canvas.width = img.naturalWidth;
    canvas.height = img.naturalHeight;
    const context = canvas.getContext('2d');
    context.drawImage(img, 0, 0);
    const [r, g, b] = context.getImageData(Math.floor(img.naturalWidth / 2), Math.floor(img.naturalHeight / 2), 1, 1).data;
    return [r, g, b];
  });
}

describe('images from tools', () => {
  let stack;
  let browser;
  let context;

  before(async () => {
    mkdirSync(RESULTS_DIR, { recursive: true });
    stack = await startStack();
    browser = await launchBrowser();
  });

  after(async () => {
    await context?.close().catch(() => {});
    await browser?.close().catch(() => {});
    await stack?.stop();
  });

  test('a test_image call shows its PNG in the chat, also after a reload', async () => {
    await pushReplies(stack.providerUrl, [toolCallReply('call_img', 'test_image', { color: '#ff8000' }), textReply(['That is orange.'])]);
    const opened = await openPage(browser, stack.url, 'en-US');
    context = opened.context;
    const { page, errors } = opened;
    await sendMessage(page, 'Show me orange');
    await page.getByText('That is orange.').waitFor({ timeout: 15_000 });

    const card = page.getByRole('region', { name: 'Tool test_image' });
    assert.equal(await card.getAttribute('data-phase'), 'success');
    await card.locator('summary').click(); // finished cards start folded
    const image = card.getByRole('img', { name: 'Image from test_image: #ff8000 square' });
    await image.waitFor({ timeout: 15_000 });
    assert.match((await image.getAttribute('src')) ?? '', /^blob:/, 'loaded through the client, not a plain URL');
    assert.deepEqual(await centreColour(image), [255, 128, 0]);

    // Opened larger with the keyboard, closed with Escape.
    await card.getByRole('button', { name: 'Open larger: Image from test_image: #ff8000 square' }).press('Enter');
    const viewer = page.getByRole('dialog', { name: 'Image from test_image: #ff8000 square' });
    await viewer.waitFor();
    await page.keyboard.press('Escape');
    await viewer.waitFor({ state: 'detached' });

    // The scripted model takes no images: the next request has a note, never the bytes.
    const calls = await modelCalls(stack.providerUrl);
    const sent = JSON.stringify(calls.at(-1)?.body ?? calls.at(-1));
    assert.match(sent, /does not accept images/);
    assert.doesNotMatch(sent, /base64/);

    await page.reload({ waitUntil: 'load' });
    await page.getByTestId('app-shell').waitFor();
    const stored = page.getByRole('region', { name: 'Tool test_image' });
    await stored.waitFor({ timeout: 15_000 });
    await stored.locator('summary').click();
    const again = stored.getByRole('img', { name: 'Image from test_image: #ff8000 square' });
    await again.waitFor({ timeout: 15_000 });
    assert.deepEqual(await centreColour(again), [255, 128, 0]);
    assert.deepEqual(errors, []);
  });
});
