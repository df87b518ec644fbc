// What each desktop test file sets up the same way: a data folder of its own per app start, the
// app over the scripted provider, the processes and folders ended after the file's tests, and a
// failure reported with what the window showed.
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startScriptedProvider, pushReplies, MODEL } from '../../ui/e2e/scripted.mjs';
import { app, appPid, startDriver, until } from './support.mjs';

const here = dirname(fileURLToPath(import.meta.url));
export const resultsDir = join(here, '..', '..', 'target-test-results');

export function stop(child) {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
}

/** Registers the file's set-up and clean-up; returns the helpers its tests use. */
export function desktopSuite() {
  const children = [];
  const temporary = [];

  before(() => {
    assert.ok(existsSync(app), `the desktop app is not installed at ${app} (run make desktop-install)`);
  });

  after(() => {
    for (const c of children) stop(c);
    for (const d of temporary) {
      // An app the driver left behind would hold its folder (and the display) for the next suite.
      const pid = appPid(d);
      if (pid) process.kill(pid, 'SIGKILL');
      rmSync(d, { recursive: true, force: true });
    }
  });

  /** A folder of its own per app start (or per anything else), so no test sees another's. */
  function dataDir(prefix = 'tessera-desktop-') {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    temporary.push(dir);
    return dir;
  }

  async function openApp(lang, args = ['--data-dir', dataDir()], env = {}) {
    const driver = await startDriver(children, lang, env);
    await driver.newSession(args);
    await until('the chat layout', () => driver.find('[data-testid="app-shell"]'));
    return driver;
  }

  /** The app over the scripted provider with its own data folder; `replies` queued first. */
  async function chatApp(replies, env = {}, model = MODEL) {
    const provider = await startScriptedProvider((child) => children.push(child));
    await pushReplies(provider.url, replies);
    const data = dataDir();
    const driver = await openApp(
      'en_US.UTF-8',
      ['--data-dir', data, '--kind', 'openai', '--base-url', `${provider.url}/v1`, '--model', model],
      env,
    );
    return { provider, data, driver };
  }

  return { children, dataDir, openApp, chatApp };
}

export async function lastAnswer(driver) {
  return driver.exec(
    'const a = document.querySelectorAll(\'[data-testid="assistant-message"]\'); return a.length ? a[a.length - 1].textContent : "";',
  );
}

/** `error` with what the window showed (and a screenshot of it beside the suite's others). */
export async function shown(driver, error, name) {
  await driver.screenshot(join(resultsDir, `${name}-failed.png`)).catch(() => {});
  const text = await driver.exec('return document.body.innerText').catch(() => '');
  return new Error(`${error.message}\nthe window showed:\n${text}`);
}
