// The installed app with a model on this computer and no account: the first run downloads the
// recommended model from a hub on 127.0.0.1 (tessera-fake-hub serving the suite's own GGUF,
// named by HF_ENDPOINT), the model becomes the default, and a message is answered by the
// worker the package installed beside the app, through a tool call (forced by the model's
// `tessera provider add --tool-choice` setting: a model with random weights never chooses one).
// Opened again with `request_form` the first choice, the model asks for a form; it is filled in
// and the answer goes on.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, appPid, startDriver, until } from './support.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const resultsDir = join(here, '..', '..', 'target-test-results');
const worker = process.env.TESSERA_LLAMA_BIN || join(dirname(app), 'tessera-llama');
const gguf = process.env.TESSERA_TEST_GGUF ?? '';
const cli = process.env.TESSERA_BIN ?? '';
const besideProvider = process.env.TESSERA_SCRIPTED_PROVIDER_BIN ? join(dirname(process.env.TESSERA_SCRIPTED_PROVIDER_BIN), 'tessera-fake-hub') : '';
const hubBin = process.env.TESSERA_FAKE_HUB_BIN || besideProvider;
const missing = [
  [worker, 'the worker (tessera-llama beside the app, or TESSERA_LLAMA_BIN)'],
  [gguf, 'TESSERA_TEST_GGUF'],
  [cli, 'TESSERA_BIN (the tessera command, to set the model up)'],
  [hubBin, 'tessera-fake-hub (TESSERA_FAKE_HUB_BIN)'],
]
  .filter(([file]) => !file || !existsSync(file))
  .map(([, what]) => what);
const skip = missing.length > 0 && process.env.TESSERA_REQUIRE_LOCAL_MODEL !== '1' ? `needs ${missing.join(', ')}` : false;

// The catalogue's files: whichever this machine's memory recommends, its answers are kept
// short (a random model never stops on its own), as a person sets a model's longest answer.
const CATALOGUE_FILES = ['qwen2.5-1.5b-instruct-q4_k_m.gguf', 'Qwen2.5-7B-Instruct-Q4_K_M.gguf', 'Mistral-Small-24B-Instruct-2501-Q4_K_M.gguf'];

const children = [];
let data;

before(() => {
  if (skip) return;
  assert.deepEqual(missing, [], 'what the suite needs is there');
  data = mkdtempSync(join(tmpdir(), 'tessera-desktop-local-'));
});

after(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
  if (data) {
    const pid = appPid(data);
    if (pid) process.kill(pid, 'SIGKILL');
    rmSync(data, { recursive: true, force: true });
  }
});

function startHub() {
  const child = spawn(hubBin, [gguf, '--bytes-per-second', '262144'], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /Listening on (http:\/\/\S+)/.exec(out);
      if (match) resolve(match[1]);
    });
    child.on('exit', (code) => reject(new Error(`tessera-fake-hub exited (${code})`)));
  });
}

const js = (driver, script) => driver.exec(script);

/**
 * The on-device provider's models as a person sets them for a model with random weights: each
 * answer at most `maxOutputTokens` long, and the first call of a run calling `tool` (it never
 * chooses one of its own accord).
 */
function setModels(maxOutputTokens, tool) {
  execFileSync(cli, ['--data-dir', data, 'provider', 'add', 'on-device', ...CATALOGUE_FILES.flatMap((f) => ['--model', f]), '--max-output-tokens', String(maxOutputTokens), '--tool-choice', tool], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/** The app on the suite's data folder; `body` drives it. */
async function withApp(extraEnv, failedShot, body) {
  const env = {
    ...extraEnv,
    TESSERA_OLLAMA_URL: 'http://127.0.0.1:9',
    TESSERA_LMSTUDIO_URL: 'http://127.0.0.1:9',
    ...(process.env.TESSERA_LLAMA_BIN ? { TESSERA_LLAMA_BIN: process.env.TESSERA_LLAMA_BIN } : {}),
  };
  const driver = await startDriver(children, 'en_US.UTF-8', env);
  await driver.newSession(['--data-dir', data]);
  try {
    await body(driver);
  } catch (error) {
    await driver.screenshot(join(resultsDir, failedShot)).catch(() => {});
    const shown = await js(driver, 'return document.body.innerText').catch(() => '');
    throw new Error(`${error.message}\nthe window showed:\n${shown}`);
  } finally {
    await driver.quit();
    // One app per data folder: the next test's `provider add` waits for this one to be gone.
    await until('the app to close', () => appPid(data) === null, 15_000);
  }
}

/** Waits for the last answer to end, and checks it ended without an error. */
async function answerEnded(driver) {
  await until(
    'the answer to end',
    () =>
      js(
        driver,
        'const a = [...document.querySelectorAll(\'[data-testid="assistant-message"]\')].at(-1); return !!a && a.getAttribute("aria-busy") === "false";',
      ),
    180_000,
  );
  const failed = await js(driver, 'return document.querySelectorAll(\'[data-testid="run-error"]\').length');
  assert.equal(failed, 0, 'the answer ended without an error');
}

test('downloads a model with no account and answers through it, calling a tool', { skip }, async () => {
  const hub = await startHub();
  setModels(200, 'get_current_datetime');
  await withApp({ HF_ENDPOINT: hub }, 'desktop-local-failed.png', async (driver) => {
    await until('the first run offer', () => driver.find('[data-testid="first-run-download"] button'), 30_000);
    const offered = await js(driver, 'return document.querySelector(\'[data-testid="first-run-download"] button\').textContent');
    assert.match(offered, /^Download a model \(.+\) — no account$/);
    await driver.click('[data-testid="first-run-download"] button');
    await until('the download progress', () => driver.find('[data-testid="first-run-download"] [role="progressbar"]'), 15_000);
    await driver.screenshot(join(resultsDir, 'desktop-local-downloading.png'));
    await until('the model in use', () => driver.find('[data-testid="first-run-done"]'), 60_000);

    await driver.type('[data-testid="composer-input"]', 'What time is it?\uE007');
    await until('the tool call', () => driver.find('[data-testid="tool-card"]'), 120_000);
    await answerEnded(driver);
    const name = await driver.text('[data-testid="tool-card"] .tool-card-name');
    assert.equal(name, 'get_current_datetime');
    await driver.screenshot(join(resultsDir, 'desktop-local-answered.png'));
  });
});

// Whatever fields the model chose, a person's answer to each, typed as React sees typing.
const FILL_FORM = `
  const card = document.querySelector('[data-testid="form-card"]');
  const typed = { email: 'ada@example.com', url: 'https://example.com', date: '2026-11-27', 'datetime-local': '2026-11-27T10:30', number: '2' };
  const setValue = (el, proto, value) => {
    Object.getOwnPropertyDescriptor(proto, 'value').set.call(el, value);
    el.dispatchEvent(new Event(el.tagName === 'SELECT' ? 'change' : 'input', { bubbles: true }));
  };
  const shown = [];
  for (const el of card.querySelectorAll('[data-field]')) {
    if (el.tagName === 'SELECT') setValue(el, HTMLSelectElement.prototype, '0');
    else if (el.type === 'checkbox') el.click();
    else {
      const value = typed[el.type] ?? 'x';
      setValue(el, HTMLInputElement.prototype, value);
      if (['email', 'url', 'text'].includes(el.type)) shown.push(value);
    }
  }
  return shown;
`;

test('asks for a form through the model on this computer, and goes on with the answer', { skip }, async () => {
  // The first test left the downloaded model as the default. A random model fills each string
  // of the form's call to its longest: room for the call. Its app may still be closing, and
  // holds the folder's lock until it has (the command line would be refused: seen once).
  await until('the first test\'s app gone from the data folder', () => appPid(data) === null, 30_000);
  setModels(1500, 'request_form');
  await withApp({}, 'desktop-local-form-failed.png', async (driver) => {
    await until('the composer', () => driver.find('[data-testid="composer-input"]'), 30_000);
    await driver.type('[data-testid="composer-input"]', 'Book a room for me\uE007');
    await until('the form', () => driver.find('[data-testid="form-card"]'), 180_000);
    assert.equal(await driver.text('[data-testid="form-card"] [data-testid="form-requester"]'), 'Asked by Assistant');
    await driver.screenshot(join(resultsDir, 'desktop-local-form.png'));
    const typed = await js(driver, FILL_FORM);
    await driver.click('[data-testid="form-card"] button[type="submit"]');
    await until('the form answered', () => js(driver, 'return !document.querySelector(\'[data-testid="form-card"]\')'), 15_000);
    // The call's end first: right after the form is answered, before the run's resumption is
    // drawn, the answer so far is not busy either (the run was waiting for the person).
    await until(
      'the form\'s call to end',
      () => js(driver, 'const c = document.querySelector(\'[data-testid="tool-card"][aria-label^="Form: "]\'); return !!c && !["preparing", "called", "queued", "running"].includes(c.getAttribute("data-phase"));'),
      180_000,
    );
    assert.equal(await js(driver, 'return document.querySelector(\'[data-testid="tool-card"][aria-label^="Form: "]\').getAttribute("data-phase")'), 'success');
    await answerEnded(driver);
    const summary = await driver.text('[data-testid="form-summary"]');
    for (const value of typed) assert.ok(summary.includes(value), `${value} in ${summary}`);
    await driver.screenshot(join(resultsDir, 'desktop-local-form-answered.png'));
  });
});
