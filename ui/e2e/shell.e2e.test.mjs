// End-to-end: the built UI (ui/dist) served by the real `tessera serve`, in Debian's headless
// Chromium driven by playwright-core (no browser download).
//
//   npm run build
//   TESSERA_BIN=/path/to/tessera npm run e2e      (CHROMIUM_BIN overrides /usr/bin/chromium)
//
// Screenshots go to ui/test-results/.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const UI_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST_DIR = path.join(UI_DIR, 'dist');
const RESULTS_DIR = path.join(UI_DIR, 'test-results');
const SERVER_START_TIMEOUT_MS = 30_000;
const SERVER_STOP_TIMEOUT_MS = 5_000;
const VIEWPORT = { width: 800, height: 600 };
const TESTIDS = ['app-shell', 'sidebar', 'chat', 'message-list', 'composer', 'composer-input', 'send-button', 'language-select'];

/** The `tessera` binary from TESSERA_BIN, or a clear reason why it cannot be used. */
function serverBinary() {
  const bin = process.env.TESSERA_BIN;
  if (!bin) {
    throw new Error(
      'TESSERA_BIN is not set: it must name the `tessera` server binary, e.g.\n' +
        '  TESSERA_BIN=/root/.cache/tessera-target/debug/tessera npm run e2e',
    );
  }
  if (!existsSync(bin) || !statSync(bin).isFile()) {
    throw new Error(`TESSERA_BIN=${bin}: no such file (build the server first: cargo build -p tessera-cli)`);
  }
  try {
    accessSync(bin, constants.X_OK);
  } catch {
    throw new Error(`TESSERA_BIN=${bin} is not executable`);
  }
  return path.resolve(bin);
}

function builtUi() {
  if (!existsSync(path.join(DIST_DIR, 'index.html'))) {
    throw new Error(`${DIST_DIR}/index.html is missing: run \`npm run build\` in ui/ first`);
  }
  return DIST_DIR;
}

/**
 * Starts `tessera serve --port 0 --ui-dir <dist>` and resolves with the child and the URL it
 * prints (`Listening on http://127.0.0.1:<port>/#token=<token>`). The child is handed back
 * through `onSpawn` at once, so that it is ended even when start-up fails.
 */
function startServer(bin, uiDir, dataDir, onSpawn) {
  // A fresh random token, as a person gets it: not one inherited from the environment.
  const env = { ...process.env };
  delete env.TESSERA_TOKEN;
  // A fresh data folder: never the person's own conversations. No model: history works,
  // a message would be refused with NO_MODEL.
  const child = spawn(bin, ['--data-dir', dataDir, 'serve', '--port', '0', '--ui-dir', uiDir], { stdio: ['ignore', 'pipe', 'pipe'], env });
  onSpawn(child);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  // Keep draining both pipes for the server's whole life, so it never blocks on a full pipe.
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-8_000);
  });

  return new Promise((resolve, reject) => {
    const output = () => `\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`;
    let settled = false;
    const settle = (fn, value) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn(value);
    };
    const timer = setTimeout(
      () => settle(reject, new Error(`${bin} printed no "Listening on" line within ${SERVER_START_TIMEOUT_MS / 1000} s${output()}`)),
      SERVER_START_TIMEOUT_MS,
    );
    child.stdout.on('data', (chunk) => {
      if (settled) return;
      stdout = (stdout + chunk).slice(-8_000);
      const match = /^Listening on (http:\/\/\S+)\s*$/m.exec(stdout);
      if (match?.[1]) settle(resolve, { child, url: new URL(match[1]) });
    });
    child.on('error', (err) => settle(reject, new Error(`cannot start ${bin}: ${err.message}`)));
    child.on('exit', (code, signal) =>
      settle(reject, new Error(`${bin} exited before listening (code ${code}, signal ${signal})${output()}`)),
    );
  });
}

/** Ends the server by its pid: SIGTERM (it shuts down gracefully), SIGKILL if it lingers. */
async function stopServer(child) {
  if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(child.pid, 'SIGTERM');
  let timer;
  const lingered = await Promise.race([
    exited.then(() => false),
    new Promise((resolve) => {
      timer = setTimeout(() => resolve(true), SERVER_STOP_TIMEOUT_MS);
    }),
  ]);
  clearTimeout(timer);
  if (lingered && child.exitCode === null && child.signalCode === null) {
    process.kill(child.pid, 'SIGKILL');
    await exited;
  }
}

describe('the chat shell served by `tessera serve`', () => {
  /** @type {import('node:child_process').ChildProcess | undefined} */
  let server;
  /** @type {URL} */
  let serverUrl;
  let token = '';
  let dataDir = '';
  /** @type {import('playwright-core').Browser | undefined} */
  let browser;
  const contexts = [];

  // Best effort if the runner itself is interrupted: never leave the server behind.
  const killOnExit = () => {
    if (server?.pid && server.exitCode === null && server.signalCode === null) {
      try {
        process.kill(server.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  };

  before(async () => {
    const bin = serverBinary();
    const uiDir = builtUi();
    mkdirSync(RESULTS_DIR, { recursive: true });
    process.once('exit', killOnExit);

    dataDir = mkdtempSync(path.join(os.tmpdir(), 'tessera-e2e-shell-'));
    const started = await startServer(bin, uiDir, dataDir, (child) => {
      server = child;
    });
    serverUrl = started.url;
    token = new URLSearchParams(serverUrl.hash.slice(1)).get('token') ?? '';
    assert.match(token, /^\S{16,}$/, `the printed URL carries a token: ${serverUrl.href}`);
    assert.equal(serverUrl.hostname, '127.0.0.1');

    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_BIN || '/usr/bin/chromium',
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });

  after(async () => {
    for (const context of contexts) await context.close().catch(() => {});
    await browser?.close().catch(() => {});
    await stopServer(server);
    process.removeListener('exit', killOnExit);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /**
   * Opens the printed URL (token in the fragment) in a fresh browser context with this locale,
   * and records every console error and page error (a CSP violation shows up as one).
   */
  async function openShell(locale, options = {}) {
    assert.ok(browser, 'the browser started');
    const context = await browser.newContext({ locale, viewport: VIEWPORT, ...options });
    contexts.push(context);
    const page = await context.newPage();
    const errors = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => errors.push(`page: ${error.message}`));
    await page.goto(serverUrl.href, { waitUntil: 'load' });
    await page.getByTestId('app-shell').waitFor({ state: 'visible', timeout: 15_000 });
    return { page, errors };
  }

  async function assertFitsViewport(page) {
    const sizes = await page.evaluate(() => ({
      scrollWidth: document.documentElement.scrollWidth,
      clientWidth: document.documentElement.clientWidth,
      bodyScrollWidth: document.body.scrollWidth,
      scrollHeight: document.documentElement.scrollHeight,
      clientHeight: document.documentElement.clientHeight,
    }));
    assert.ok(sizes.scrollWidth <= sizes.clientWidth, `no horizontal scrolling: ${JSON.stringify(sizes)}`);
    assert.ok(sizes.bodyScrollWidth <= sizes.clientWidth, `no horizontal scrolling: ${JSON.stringify(sizes)}`);
    assert.ok(sizes.scrollHeight <= sizes.clientHeight, `the page itself does not scroll: ${JSON.stringify(sizes)}`);
    for (const id of TESTIDS) {
      const box = await page.getByTestId(id).boundingBox();
      assert.ok(box, `${id} is rendered`);
      assert.ok(box.x >= 0 && box.y >= 0, `${id} starts inside the window: ${JSON.stringify(box)}`);
      assert.ok(box.x + box.width <= VIEWPORT.width + 0.5, `${id} ends inside the window: ${JSON.stringify(box)}`);
      assert.ok(box.y + box.height <= VIEWPORT.height + 0.5, `${id} ends inside the window: ${JSON.stringify(box)}`);
    }
  }

  test('GET /healthz answers ok without a token', async () => {
    const response = await fetch(new URL('/healthz', serverUrl.origin));
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /application\/json/);
    const body = await response.json();
    assert.equal(body.status, 'ok');
  });

  test('en-US: the chat layout in English, the token moved out of the URL, fits 800×600', async () => {
    const { page, errors } = await openShell('en-US');

    // Keyboard, from a fresh load: the composer has it; the skip link, first on the page, jumps
    // back to it.
    await page.getByTestId('composer-input').waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'composer-input');
    assert.equal(await page.evaluate(() => document.querySelector('a, button, input, textarea, select')?.className), 'skip-link');
    await page.getByRole('link', { name: 'Skip to message input' }).focus();
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'composer-input');
    assert.equal(new URL(page.url()).hash, '');

    for (const id of TESTIDS) assert.ok(await page.getByTestId(id).isVisible(), `${id} is visible`);
    assert.equal(await page.locator('html').getAttribute('lang'), 'en');
    assert.equal(await page.title(), 'Tessera');

    // Landmarks and accessible names.
    const nav = page.getByRole('navigation', { name: 'Conversations' });
    assert.equal(await nav.getAttribute('data-testid'), 'sidebar');
    assert.ok(await nav.getByRole('button', { name: 'New conversation' }).isEnabled());
    assert.ok(await nav.getByRole('searchbox', { name: 'Search conversations' }).isVisible());
    assert.ok(await nav.getByText('No conversations yet').isVisible());
    const main = page.getByRole('main');
    assert.equal(await main.getAttribute('data-testid'), 'chat');
    assert.equal(await main.getByRole('heading', { level: 1 }).textContent(), 'New conversation');
    const log = page.getByRole('log', { name: 'Messages' });
    assert.equal(await log.getAttribute('data-testid'), 'message-list');
    assert.equal(await log.getAttribute('aria-live'), 'polite');
    assert.ok(await log.getByText('Welcome to Tessera').isVisible());

    const composer = page.getByRole('textbox', { name: 'Message' });
    assert.equal(await composer.getAttribute('data-testid'), 'composer-input');
    const send = page.getByRole('button', { name: 'Send' });
    assert.equal(await send.getAttribute('data-testid'), 'send-button');
    assert.equal(await page.getByRole('combobox', { name: 'Language' }).getAttribute('data-testid'), 'language-select');
    assert.ok(await page.getByRole('combobox', { name: 'Theme' }).isVisible());

    // Connected to the engine with the page's token: Send is enabled once there is text.
    await page.locator('#composer-status[data-state="connected"]').waitFor({ state: 'attached', timeout: 10_000 });
    assert.ok(await send.isDisabled());
    await composer.fill('Hello');
    assert.ok(await send.isEnabled());
    await composer.fill('');
    assert.ok(await send.isDisabled());
    await composer.blur();

    // The token went from the fragment to sessionStorage; the address bar has no hash.
    assert.equal(await page.evaluate(() => sessionStorage.getItem('tessera.token')), token);
    assert.equal(await page.evaluate(() => localStorage.getItem('tessera.token')), null);
    assert.equal(new URL(page.url()).hash, '');
    assert.ok(!page.url().includes('#') && !page.url().includes(token), `no token in ${page.url()}`);
    // …and it is the server's: the API accepts it, and refuses without it.
    const withToken = await page.evaluate(async () => {
      const stored = sessionStorage.getItem('tessera.token');
      const response = await fetch('/api/v1/version', { headers: { Authorization: `Bearer ${stored}` } });
      return response.status;
    });
    assert.equal(withToken, 200);
    assert.equal((await fetch(new URL('/api/v1/version', serverUrl.origin))).status, 401);

    await assertFitsViewport(page);
    await page.screenshot({ path: path.join(RESULTS_DIR, 'shell-en.png') });

    // The dark theme, for the record (and it must still fit).
    await page.getByRole('combobox', { name: 'Theme' }).selectOption('dark');
    assert.equal(await page.locator('html').getAttribute('data-theme'), 'dark');
    await assertFitsViewport(page);
    await page.screenshot({ path: path.join(RESULTS_DIR, 'shell-en-dark.png') });

    assert.deepEqual(errors, [], 'no console or page errors (CSP violations included)');
  });

  test('zh-CN: the chat layout in Chinese', async () => {
    const { page, errors } = await openShell('zh-CN', { colorScheme: 'dark' });

    assert.equal(await page.locator('html').getAttribute('lang'), 'zh-CN');
    assert.ok(await page.getByRole('navigation', { name: '会话' }).isVisible());
    assert.ok(await page.getByRole('button', { name: '新建会话' }).isVisible());
    assert.ok(await page.getByRole('searchbox', { name: '搜索会话' }).isVisible());
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), '新会话');
    assert.ok(await page.getByRole('log', { name: '消息' }).getByText('欢迎使用 Tessera').isVisible());
    const composer = page.getByRole('textbox', { name: '消息' });
    assert.equal(await composer.getAttribute('data-testid'), 'composer-input');
    assert.ok(await page.getByRole('button', { name: '发送' }).isDisabled());
    await page.locator('#composer-status[data-state="connected"]').waitFor({ state: 'attached', timeout: 10_000 });
    assert.equal(await page.getByText('Not connected to an engine yet').count(), 0);
    assert.equal(await page.getByText('尚未连接到引擎').count(), 0);
    assert.equal(await page.getByTestId('language-select').inputValue(), 'zh-CN');
    // "System" theme with a dark OS preference: dark colours without a data-theme override.
    assert.equal(await page.locator('html').getAttribute('data-theme'), null);
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    assert.notEqual(background, 'rgb(255, 255, 255)', 'follows prefers-color-scheme: dark');

    await assertFitsViewport(page);
    await page.screenshot({ path: path.join(RESULTS_DIR, 'shell-zh.png') });
    assert.deepEqual(errors, []);
  });

  test('switching the language changes the text at once, and survives a reload', async () => {
    const { page, errors } = await openShell('en-US');
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'New conversation');

    await page.getByTestId('language-select').selectOption('zh-CN');
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), '新会话');
    assert.ok(await page.getByRole('navigation', { name: '会话' }).isVisible());
    assert.ok(await page.getByRole('textbox', { name: '消息' }).isVisible());
    assert.equal(await page.locator('html').getAttribute('lang'), 'zh-CN');
    assert.equal(new URL(page.url()).hash, '', 'no reload, no hash');
    // The saved choice wins over the en-US browser locale; the token survives the reload.
    await page.reload({ waitUntil: 'load' });
    await page.getByTestId('app-shell').waitFor({ state: 'visible' });
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), '新会话');
    assert.equal(await page.evaluate(() => sessionStorage.getItem('tessera.token')), token);

    await page.getByTestId('language-select').selectOption('en');
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'New conversation');
    assert.equal(await page.locator('html').getAttribute('lang'), 'en');
    assert.deepEqual(errors, []);
  });
});
