// End-to-end: a picture for a model that cannot see images, against a real `tessera serve`: the
// composer says so beside the picture before anything is sent (the engine decides, from the
// model's name or what the person set); set in Settings → Providers as taking images, it is
// sent and the note is gone.

import assert from 'node:assert/strict';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { RESULTS_DIR, suiteStack } from './harness.mjs';
import { MODEL, modelCalls, pushReplies, textReply } from './scripted.mjs';

/** A 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');

describe('a picture for a model that cannot see images', () => {
  const suite = suiteStack({ unconfigured: true, models: [MODEL] });
  let stack;
  before(() => ({ stack } = suite));

  async function api(method, route, body) {
    const response = await fetch(new URL(route, stack.url), {
      method,
      headers: { Authorization: `Bearer ${stack.token}`, 'content-type': 'application/json' },
      body: body && JSON.stringify(body),
    });
    assert.ok(response.ok, `${method} ${route}: ${response.status} ${await response.clone().text()}`);
    return response.json();
  }

  test('the composer says so before sending; said to take images in Settings, the picture is sent', async () => {
    await api('POST', '/v1/providers', { name: 'lab', kind: 'openai', base_url: `${stack.providerUrl}/v1`, default_model: MODEL, requires_key: false });
    await api('POST', '/v1/providers/lab/default', {});
    const engine = await api('GET', `/v1/providers/lab/images?model=${MODEL}`);
    assert.deepEqual(engine, { provider: 'lab', model: MODEL, takes_images: false, source: 'guessed' });

    const { page, errors } = await suite.open('en-US');
    const attach = async () => {
      await page.getByTestId('attach-input').setInputFiles({ name: 'chart.png', mimeType: 'image/png', buffer: PNG });
      await page.getByTestId('composer-file').waitFor();
    };
    await attach();
    const note = page.getByTestId('image-unseen');
    await note.waitFor({ timeout: 10_000 });
    assert.equal(
      await note.textContent(),
      `${MODEL} cannot see images: it will be told a picture was attached, not shown it. Pick a model that takes images, or say in Settings → Providers that this one does.`,
    );
    assert.ok(await note.isVisible());
    await page.screenshot({ path: path.join(RESULTS_DIR, 'image-unseen.png') });
    await page.getByRole('button', { name: 'Remove chart.png' }).click();

    // Settings → Providers: this model does take images.
    await page.getByRole('button', { name: 'Open settings' }).click();
    await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('button', { name: 'Providers' }).click();
    await page.getByTestId('provider-list').getByRole('button', { name: /^lab/ }).click();
    const detail = page.getByTestId('provider-detail');
    await detail.getByRole('heading', { name: 'lab' }).waitFor({ timeout: 10_000 });
    await detail.getByRole('button', { name: 'Edit' }).click();
    const form = page.getByRole('form', { name: 'Edit lab' });
    const takes = form.getByRole('combobox', { name: /Takes images/ });
    assert.equal(await takes.inputValue(), 'guess');
    await takes.selectOption({ label: 'Yes, it sees images' });
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Provider lab saved.').waitFor({ timeout: 10_000 });
    assert.deepEqual(await api('GET', `/v1/providers/lab/images?model=${MODEL}`), { provider: 'lab', model: MODEL, takes_images: true, source: 'on' });
    await page.getByRole('button', { name: '← Back to chat' }).click();

    await pushReplies(stack.providerUrl, [textReply(['A single pixel.'])]);
    await attach();
    await page.waitForTimeout(500);
    assert.equal(await note.count(), 0, 'no note for a model said to take images');
    const composer = page.getByRole('textbox', { name: 'Message' });
    await composer.fill('What is in it?');
    await composer.press('Enter');
    await page.getByText('A single pixel.').waitFor({ timeout: 15_000 });
    const sent = JSON.stringify((await modelCalls(stack.providerUrl)).at(-1));
    assert.match(sent, /data:image\/png;base64,/, 'the picture was sent to the model');
    assert.deepEqual(errors, []);
  });
});
