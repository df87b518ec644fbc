// End-to-end: the app closed and opened again, against a real `tessera serve` restarted over the
// same data folder (on the same address, so the page keeps its storage, as the desktop app's
// webview does): the composer has the keyboard, the conversation that was open is open again,
// the list marks the one that waits for the person, and what was typed into its form is there.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DIST_DIR, RESULTS_DIR, VIEWPORT, launchBrowser, sendMessage, withTestToolsBin, stopChild, waitForListening } from './harness.mjs';
import { MODEL, pushReplies, startScriptedProvider, textReply, toolCallReply } from './scripted.mjs';

const DINNER = {
  title: 'Dinner booking',
  fields: [
    { name: 'start', label: 'Arrival date', kind: 'date', required: true },
    { name: 'vegetarian', label: 'Vegetarian menu', kind: 'yes_no' },
    { name: 'notes', label: 'Notes', kind: 'text' },
  ],
};

describe('the app opened again', () => {
  const children = [];
  let dataDir;
  let provider;
  let server;
  let url;
  let browser;
  let context;

  /** `tessera serve` over the suite's data folder; `port` 0 the first time, then the same one. */
  const serve = async (port) => {
    const env = { ...process.env, OPENAI_API_KEY: 'scripted', TESSERA_OLLAMA_URL: 'http://127.0.0.1:9', TESSERA_LMSTUDIO_URL: 'http://127.0.0.1:9' };
    delete env.TESSERA_TOKEN;
    const args = ['--data-dir', dataDir, 'serve', '--port', String(port), '--ui-dir', DIST_DIR, '--kind', 'openai', '--base-url', `${provider.url}/v1`, '--model', MODEL];
    server = spawn(withTestToolsBin(), args, { stdio: ['ignore', 'pipe', 'pipe'], env });
    children.push(server);
    url = await waitForListening(server, 'tessera serve');
  };

  /** The app's window: a page of the one browser context (its storage kept between pages). */
  const openApp = async () => {
    const page = await context.newPage();
    const errors = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(`console: ${m.text()}`));
    page.on('pageerror', (e) => errors.push(`page: ${e.message}`));
    await page.goto(url.href, { waitUntil: 'load' });
    await page.locator('#composer-status[data-state="connected"]').waitFor({ state: 'attached', timeout: 15_000 });
    return { page, errors };
  };

  const api = async (method, route) => {
    const token = new URLSearchParams(url.hash.slice(1)).get('token') ?? '';
    const answer = await fetch(new URL(route, url.origin), { method, headers: { authorization: `Bearer ${token}` } });
    assert.ok(answer.ok, `${method} ${route}: ${answer.status}`);
    return answer.json();
  };

  const focused = (page) => page.evaluate(() => document.activeElement?.getAttribute('data-testid'));

  before(async () => {
    const bin = process.env.TESSERA_BIN;
    if (!bin || !existsSync(bin)) throw new Error('TESSERA_BIN must name the `tessera` binary');
    mkdirSync(RESULTS_DIR, { recursive: true });
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'tessera-e2e-relaunch-'));
    provider = await startScriptedProvider((c) => children.push(c));
    await serve(0);
    browser = await launchBrowser();
    context = await browser.newContext({ locale: 'en-US', viewport: VIEWPORT });
  });

  after(async () => {
    await context?.close().catch(() => {});
    await browser?.close().catch(() => {});
    for (const child of children.reverse()) await stopChild(child);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test('keyboard in the composer, the open conversation and its half-filled form back, the waiting one marked', async () => {
    let { page, errors } = await openApp();
    assert.equal(await focused(page), 'composer-input', 'the composer has the keyboard at launch');

    await pushReplies(provider.url, [textReply(['Milk and bread.'])]);
    await sendMessage(page, 'Groceries?');
    await page.getByText('Milk and bread.').waitFor({ timeout: 15_000 });
    await pushReplies(provider.url, [toolCallReply('call_d', 'request_form', DINNER), textReply(['Booked for the 24th.'])]);
    await page.getByRole('button', { name: 'New conversation' }).click();
    await sendMessage(page, 'Book dinner');
    let form = page.getByRole('form', { name: 'Dinner booking' });
    await form.waitFor({ timeout: 15_000 });
    await form.getByLabel('Arrival date').fill('2026-12-24');
    await form.getByLabel('Vegetarian menu').check();
    await form.getByRole('textbox', { name: 'Notes' }).fill('Near the window');

    const nav = page.getByRole('navigation', { name: 'Conversations' });
    const dinner = nav.getByRole('button', { name: 'Book dinner Waits for you' });
    await dinner.waitFor({ timeout: 10_000 });
    assert.equal(await nav.getByTestId('conversation-waiting').count(), 1, 'only the waiting one is marked');
    assert.ok(await dinner.getByTestId('conversation-waiting').isVisible(), 'the mark is seen');
    const dinnerId = await dinner.getAttribute('data-conversation-id');
    await page.screenshot({ path: path.join(RESULTS_DIR, 'relaunch-before.png') });
    assert.deepEqual(errors, []);

    // The app closes and the engine with it; both start again.
    await page.close();
    const { port } = url;
    await stopChild(server);
    await serve(Number(port));
    ({ page, errors } = await openApp());

    await page.getByRole('heading', { level: 1, name: 'Book dinner' }).waitFor({ timeout: 15_000 });
    form = page.getByRole('form', { name: 'Dinner booking' });
    await form.waitFor({ timeout: 15_000 });
    assert.equal(await form.getByLabel('Arrival date').inputValue(), '2026-12-24');
    assert.ok(await form.getByLabel('Vegetarian menu').isChecked());
    assert.equal(await form.getByRole('textbox', { name: 'Notes' }).inputValue(), 'Near the window');
    assert.equal(await focused(page), 'composer-input', 'the composer has the keyboard again');
    const marked = page.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: 'Book dinner Waits for you' });
    await marked.waitFor({ timeout: 10_000 });
    assert.equal(await marked.getAttribute('aria-current'), 'page');
    await page.screenshot({ path: path.join(RESULTS_DIR, 'relaunch-after.png') });

    // Another conversation opened: the list still marks the one waiting.
    await page.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: 'Groceries?', exact: true }).click();
    await page.getByText('Milk and bread.').waitFor({ timeout: 10_000 });
    assert.ok(await marked.isVisible(), 'still marked from elsewhere');
    await marked.click();
    await form.waitFor({ timeout: 10_000 });
    assert.equal(await form.getByRole('textbox', { name: 'Notes' }).inputValue(), 'Near the window');

    // Answered: no mark, and nothing of the draft left behind.
    await form.getByRole('button', { name: 'Submit' }).click();
    await page.getByText('Booked for the 24th.').waitFor({ timeout: 15_000 });
    await page.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: 'Book dinner', exact: true }).waitFor({ timeout: 10_000 });
    assert.equal(await page.getByTestId('conversation-waiting').count(), 0);
    assert.deepEqual(await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('tessera.formDraft.'))), []);
    assert.deepEqual(errors, []);

    // Deleted while the app was closed: it opens on a new conversation, as on a first start.
    await page.close();
    await api('DELETE', `/v1/conversations/${dinnerId}`);
    ({ page, errors } = await openApp());
    await page.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: 'Groceries?', exact: true }).waitFor({ timeout: 10_000 });
    assert.ok(await page.getByRole('heading', { level: 1, name: 'New conversation' }).isVisible());
    assert.equal(await focused(page), 'composer-input');
    assert.deepEqual(errors, []);
  });
});
