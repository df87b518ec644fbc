// What the desktop suite and scripts/figures.mjs share: a minimal WebDriver client for
// tauri-driver (in front of WebKitWebDriver), free ports, polling.
import { execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { decodeXwd, encodePng } from './png.mjs';

export const app = process.env.TESSERA_DESKTOP_BIN || '/usr/bin/tessera-desktop';
const nativeDriver = process.env.WEBKIT_WEBDRIVER || '/usr/bin/WebKitWebDriver';

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export async function until(what, fn, limitMs = 30000) {
  const deadline = Date.now() + limitMs;
  let last;
  while (Date.now() < deadline) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${last.message}` : ''}`);
}

export class Driver {
  constructor(port) {
    this.base = `http://127.0.0.1:${port}`;
  }
  async call(method, path, body) {
    const res = await fetch(this.base + path, {
      method,
      headers: body ? { 'content-type': 'application/json' } : undefined,
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = await res.json().catch(() => ({}));
    if (!res.ok) {
      throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json.value ?? json)}`);
    }
    return json.value;
  }
  async newSession(args = [], application = app) {
    const value = await this.call('POST', '/session', {
      capabilities: {
        alwaysMatch: { browserName: 'wry', 'tauri:options': { application, args } },
      },
    });
    this.session = value.sessionId;
  }
  s(path) {
    return `/session/${this.session}${path}`;
  }
  async find(css) {
    const v = await this.call('POST', this.s('/element'), { using: 'css selector', value: css });
    return Object.values(v)[0];
  }
  async text(css) {
    return this.call('GET', this.s(`/element/${await this.find(css)}/text`));
  }
  async click(css) {
    await this.clickElement(await this.find(css));
  }
  async clickButton(label) {
    const v = await this.call('POST', this.s('/element'), {
      using: 'xpath',
      value: `//button[normalize-space()='${label}']`,
    });
    await this.clickElement(Object.values(v)[0]);
  }
  /** Clicks once the element has stopped moving, as a hand waits for what it aims at: the
   * app scrolls a form into view smoothly, and WebDriver refuses a click ("element not
   * interactable") when the element scrolled away between its own scroll and the click. */
  async clickElement(element) {
    const ref = { 'element-6066-11e4-a52e-4f735466cecf': element };
    const where = () =>
      this.exec('const r = arguments[0].getBoundingClientRect(); return [r.x, r.y, r.width, r.height].join(" ");', [ref]);
    let last = await where();
    for (let i = 0; i < 50; i += 1) {
      await sleep(80);
      const now = await where();
      if (now === last) break;
      last = now;
    }
    await this.call('POST', this.s(`/element/${element}/click`), {});
  }
  async type(css, text) {
    await this.call('POST', this.s(`/element/${await this.find(css)}/value`), { text });
  }
  /** Presses `keys` together (WebDriver actions: each down in order, then up in reverse), as
   * a person pressing a shortcut: `keys('\uE009', 'k')` is Ctrl+K. */
  async keys(...keys) {
    const down = keys.map((value) => ({ type: 'keyDown', value }));
    const up = [...keys].reverse().map((value) => ({ type: 'keyUp', value }));
    await this.call('POST', this.s('/actions'), { actions: [{ type: 'key', id: 'keyboard', actions: [...down, ...up] }] });
    await this.call('DELETE', this.s('/actions'));
  }
  /** Moves the pointer onto the element `css` matches, as a hand moving the mouse to it. */
  async hover(css) {
    const element = await this.find(css);
    const origin = { 'element-6066-11e4-a52e-4f735466cecf': element };
    await this.call('POST', this.s('/actions'), { actions: [{ type: 'pointer', id: 'mouse', parameters: { pointerType: 'mouse' }, actions: [{ type: 'pointerMove', duration: 0, origin, x: 0, y: 0 }] }] });
    await this.call('DELETE', this.s('/actions'));
  }
  async attr(css, name) {
    return this.call('GET', this.s(`/element/${await this.find(css)}/attribute/${name}`));
  }
  async exec(script, args = []) {
    return this.call('POST', this.s('/execute/sync'), { script, args });
  }
  /** What the X display shows, as a PNG: WebDriver's own screenshot never returns from a
   * webview that draws without GL (the app's choice on a machine without a GPU, like Xvfb). */
  async screenshot(file) {
    const { width, height, rgb } = this.display();
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, encodePng(width, height, rgb));
  }
  /** The X display's pixels now: `{ width, height, rgb }`. */
  display() {
    return decodeXwd(execFileSync('xwd', ['-root', '-silent'], { maxBuffer: 64 * 1024 * 1024 }));
  }
  async quit() {
    if (this.session) await this.call('DELETE', this.s('')).catch(() => {});
    this.session = undefined;
  }
}


/** tauri-driver on free ports, the app started with `lang` and `extraEnv`; `children` collects
 * the processes to end. */
export async function startDriver(children, lang, extraEnv = {}) {
  const port = await freePort();
  const nativePort = await freePort();
  const child = spawn(
    'tauri-driver',
    ['--port', String(port), '--native-port', String(nativePort), '--native-driver', nativeDriver],
    {
      stdio: ['ignore', 'inherit', 'inherit'],
      // The scripted provider takes any key; an ad-hoc OpenAI-wire provider asks for one. A
      // config folder of its own per start: no window state carried from another run.
      env: { ...process.env, LANG: lang, LANGUAGE: lang.split('.')[0], LC_ALL: '', OPENAI_API_KEY: 'scripted', XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), 'tessera-config-')), ...extraEnv },
    },
  );
  children.push(child);
  const driver = new Driver(port);
  // tauri-driver answers before WebKitWebDriver is ready: wait for /status to say so.
  await until('tauri-driver /status', async () => {
    const res = await fetch(`${driver.base}/status`);
    const body = await res.json();
    return res.ok && body.value?.ready !== false;
  });
  driver.child = child;
  return driver;
}


/** The pid of the app running over `dataDir`, or null. */
export function appPid(dataDir) {
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (cmd[0]?.endsWith('tessera-desktop') && cmd.includes(dataDir)) return Number(pid);
    } catch {
      // gone meanwhile
    }
  }
  return null;
}

