// Shared by the end-to-end suites that chat: the scripted provider (the real OpenAI SSE wire),
// a real `tessera serve` over a fresh data folder using it as its model (with the test tools,
// so a run can ask for consent), and Debian's Chromium at 800×600.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { after, before } from 'node:test';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { MODEL, startScriptedProvider } from './scripted.mjs';

const UI_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const DIST_DIR = path.join(UI_DIR, 'dist');
export const RESULTS_DIR = path.join(UI_DIR, 'test-results');
/** Screenshots a person looks at before an issue closes (README "What `make test` runs"). */
export const SCREENS_DIR = path.join(UI_DIR, '..', 'target-test-results');
export const VIEWPORT = { width: 800, height: 600 };

/**
 * The `tessera` command line with the testkit's tools (`tessera-with-test-tools`, built beside
 * TESSERA_BIN by `cargo build -p tessera-test-tools`): the suites serve through it, so a model
 * can call the slow, guarded and image tools the tests lean on. The product never has them.
 */
export function withTestToolsBin() {
  const bin = process.env.TESSERA_BIN;
  if (!bin || !existsSync(bin)) throw new Error('TESSERA_BIN must name the `tessera` binary');
  const withTools = path.join(path.dirname(path.resolve(bin)), 'tessera-with-test-tools');
  if (!existsSync(withTools)) throw new Error(`${withTools} is missing: cargo build -p tessera-test-tools`);
  return withTools;
}

export function waitForListening(child, name) {
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-8_000);
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} printed no "Listening on" line\n${stdout}\n${stderr}`)), 30_000);
    child.stdout.on('data', (chunk) => {
      stdout = (stdout + chunk).slice(-8_000);
      const match = /^Listening on (http:\/\/\S+)\s*$/m.exec(stdout);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(new URL(match[1]));
      }
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited before listening (code ${code}, signal ${signal})\n${stderr}`));
    });
  });
}

/** Ends a child by its pid: SIGTERM, then SIGKILL if it lingers. */
export async function stopChild(child) {
  if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(child.pid, 'SIGTERM');
  let timer;
  const lingered = await Promise.race([
    exited.then(() => false),
    new Promise((resolve) => {
      timer = setTimeout(() => resolve(true), 5_000);
    }),
  ]);
  clearTimeout(timer);
  if (lingered && child.exitCode === null && child.signalCode === null) {
    process.kill(child.pid, 'SIGKILL');
    await exited;
  }
}

/**
 * Starts the scripted provider, then `tessera serve` using it; returns what a test needs and
 * a `stop()` that ends both (by pid) and removes the data folder. With `unconfigured`, the
 * server starts with no model at all (the test sets the provider up, as a person would) and
 * the provider lists `models`.
 */
export async function startStack({ unconfigured = false, models = [], localOllama = false } = {}) {
  const bin = withTestToolsBin();
  if (!existsSync(path.join(DIST_DIR, 'index.html'))) throw new Error('run `npm run build` in ui/ first');
  const children = [];
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tessera-e2e-chat-'));
  const killAll = () => {
    for (const c of children) {
      if (c.pid && c.exitCode === null && c.signalCode === null) {
        try {
          process.kill(c.pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
    }
  };
  process.once('exit', killAll);
  const stop = async () => {
    for (const c of children.reverse()) await stopChild(c);
    process.removeListener('exit', killAll);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const provider = await startScriptedProvider((c) => children.push(c), models);
    const env = { ...process.env, OPENAI_API_KEY: 'scripted' };
    delete env.TESSERA_TOKEN;
    // Model servers on this machine: the scripted provider stands for a local Ollama (it
    // answers `/api/tags`), or nothing is found (a closed port), whatever runs here.
    env.TESSERA_OLLAMA_URL = localOllama ? provider.url : 'http://127.0.0.1:9';
    env.TESSERA_LMSTUDIO_URL = 'http://127.0.0.1:9';
    const modelFlags = unconfigured ? [] : ['--kind', 'openai', '--base-url', `${provider.url}/v1`, '--model', MODEL];
    const server = spawn(path.resolve(bin), ['--data-dir', dataDir, 'serve', '--port', '0', '--ui-dir', DIST_DIR, ...modelFlags], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env,
    });
    children.push(server);
    const url = await waitForListening(server, 'tessera serve');
    const token = new URLSearchParams(url.hash.slice(1)).get('token') ?? '';
    assert.ok(token, 'the printed URL carries a token');
    return { providerUrl: provider.url, url, token, dataDir, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

export function launchBrowser() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_BIN || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** A fresh page at the printed URL, recording console and page errors. */
export async function openPage(browser, url, locale = 'en-US') {
  const context = await browser.newContext({ locale, viewport: VIEWPORT });
  const page = await context.newPage();
  const errors = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`page: ${error.message}`));
  await page.goto(url.href, { waitUntil: 'load' });
  await page.getByTestId('app-shell').waitFor({ state: 'visible', timeout: 15_000 });
  await page.locator('#composer-status[data-state="connected"]').waitFor({ state: 'attached', timeout: 15_000 });
  return { context, page, errors };
}

/** Types a message and sends it with Enter. */
export async function sendMessage(page, text) {
  const composer = page.getByRole('textbox', { name: 'Message' });
  await composer.fill(text);
  await composer.press('Enter');
}

/**
 * One stack (`tessera serve` + the scripted provider) and one browser for a `describe` block:
 * started before its tests, ended after them with every page context `open` made.
 */
export function suiteStack(options) {
  const suite = {
    stack: null,
    browser: null,
    contexts: [],
    async open(locale) {
      const opened = await openPage(suite.browser, suite.stack.url, locale);
      suite.contexts.push(opened.context);
      return opened;
    },
  };
  before(async () => {
    mkdirSync(RESULTS_DIR, { recursive: true });
    suite.stack = await startStack(options);
    suite.browser = await launchBrowser();
  });
  after(async () => {
    for (const c of suite.contexts) await c.close().catch(() => {});
    await suite.browser?.close().catch(() => {});
    await suite.stack?.stop();
  });
  return suite;
}

/** The RGB of the pixel at (`x`, `y`) of a loaded `<img>` (a locator), as the page decoded it. */
export function pixelOf(image, x, y) {
  return image.evaluate(
    (img, [px, py]) => {
      const canvas = document.createElement('canvas');
      canvas.width = img.naturalWidth;
      canvas.height = img.naturalHeight;
      const ctx = canvas.getContext('2d');
      ctx.drawImage(img, 0, 0);
      return [...ctx.getImageData(px, py, 1, 1).data.slice(0, 3)];
    },
    [x, y],
  );
}
