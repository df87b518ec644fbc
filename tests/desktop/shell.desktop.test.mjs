// The installed desktop app, driven like a person would see it: tauri-driver in front of
// WebKitWebDriver, under Xvfb (see the Makefile's test-desktop). No fixed ports: free ones are
// picked per run; everything started here is ended by pid.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { execFileSync, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startScriptedProvider, pushReplies, textReply, toolCallReply, modelCalls, MODEL } from '../../ui/e2e/scripted.mjs';
import { decodePng } from './png.mjs';
import { app, appPid, sleep, until } from './support.mjs';
import { desktopSuite, lastAnswer, resultsDir, shown, stop } from './suite.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const { children, dataDir, openApp, chatApp } = desktopSuite();

test('the installed app opens its window with the chat layout, in English', async () => {
  const driver = await openApp('en_US.UTF-8');
  try {
    assert.ok(await driver.find('[data-testid="sidebar"]'));
    assert.ok(await driver.find('[data-testid="message-list"]'));
    const input = await driver.find('[data-testid="composer-input"]');
    assert.ok(input);
    const label = await driver.exec(
      'const el = document.querySelector(\'[data-testid="composer-input"]\');' +
        'return el.getAttribute("aria-label") || (el.labels && el.labels[0] && el.labels[0].textContent) || "";',
    );
    assert.ok(label && label.trim().length > 0, 'the composer has an accessible name');
    assert.equal(await driver.exec('return document.documentElement.lang'), 'en');
    const title = await driver.exec('return document.title');
    assert.match(title, /Tessera/);
    // The first window fits a screen 800 pixels high, with room for a panel and its title bar.
    const outer = await driver.exec('return window.outerHeight');
    assert.ok(outer <= 740, `the window is ${outer} px high`);
    // No model yet: the empty chat offers to set one up.
    await until('the first-run panel', () => driver.find('[data-testid="first-run"]'));
    assert.match(await driver.text('[data-testid="first-run"]'), /No model is set up yet/);
    await driver.screenshot(join(resultsDir, 'desktop-en.png'));
    await driver.exec('document.documentElement.setAttribute("data-theme", "dark")');
    await until('the dark theme drawn', async () => (await driver.exec('return getComputedStyle(document.body).colorScheme || getComputedStyle(document.documentElement).colorScheme')) === 'dark');
    await new Promise((r) => setTimeout(r, 500)); // the next frame on the display
    await driver.screenshot(join(resultsDir, 'desktop-first-run-en-dark.png'));
  } finally {
    await driver.quit();
    stop(driver.child);
  }
});

/** Where the first-run panel's title is on the screen: `[left, top, right, bottom]`. */
const FIRST_RUN_TITLE = `
  const title = document.querySelector('[data-testid="first-run"] :is(h2, h3)');
  const r = title.getBoundingClientRect();
  const x = window.screenX, y = window.screenY + window.outerHeight - window.innerHeight;
  return [x + r.left, y + r.top, x + r.right, y + r.bottom].map(Math.round);`;

/** Whether the X display shows text's ink (a dark pixel) inside `[left, top, right, bottom]`. */
function inkIn(driver, [left, top, right, bottom]) {
  const { width, rgb } = driver.display();
  for (let y = top; y < bottom; y++) {
    for (let x = left; x < right; x++) {
      const at = (y * width + x) * 3;
      if (Math.max(rgb[at], rgb[at + 1], rgb[at + 2]) < 100) return true;
    }
  }
  return false;
}

test('with a Chinese OS locale the app speaks Chinese', async () => {
  const driver = await openApp('zh_CN.UTF-8');
  try {
    assert.equal(await driver.exec('return document.documentElement.lang'), 'zh-CN');
    const text = await driver.text('[data-testid="app-shell"]');
    assert.match(text, /[\u4e00-\u9fff]/, 'the layout shows Chinese text');
    await until('the first-run panel', () => driver.find('[data-testid="first-run"]'));
    assert.match(await driver.text('[data-testid="first-run"]'), /还没有设置模型/);
    // And the window draws it: in zh_CN, GTK's default XIM module froze the window on its first
    // frame once the composer took the focus, while the page (all a DOM check sees) went on.
    await until('the first-run panel drawn in the window', async () => inkIn(driver, await driver.exec(FIRST_RUN_TITLE)), 15000);
    await driver.screenshot(join(resultsDir, 'desktop-zh.png'));
    await driver.exec('document.documentElement.setAttribute("data-theme", "dark")');
    await new Promise((r) => setTimeout(r, 800)); // the next frame on the display
    await driver.screenshot(join(resultsDir, 'desktop-first-run-zh-dark.png'));
  } finally {
    await driver.quit();
    stop(driver.child);
  }
});

test('a message gets a streamed answer from the engine the app hosts (the API over IPC)', async () => {
  const provider = await startScriptedProvider((child) => children.push(child));
  // The math is drawn by the Markdown worker once it has loaded its math chunk (it starts
  // without it): that the chunk loads in the app's WebView, under its protocol and policy.
  const pieces = ['Hello ', 'from ', 'the ', '**desktop**', ', where $x^2$ ', 'is math'];
  await pushReplies(provider.url, [textReply(pieces, 150)]);
  const driver = await openApp('en_US.UTF-8', [
    '--data-dir', dataDir(),
    '--kind', 'openai', '--base-url', `${provider.url}/v1`, '--model', MODEL,
  ]);
  try {
    await driver.type('[data-testid="composer-input"]', 'Say hello\uE007');
    // The answer grows while it streams, then ends with its usage line.
    await until('the first words of the answer', async () => {
      const text = await driver.exec(
        'const a = document.querySelectorAll(\'[data-testid="assistant-message"]\'); return a.length ? a[a.length - 1].textContent : "";',
      );
      return text.includes('Hello');
    });
    await until('the whole answer', () => driver.find('[data-testid="assistant-message"] strong'));
    await until('the usage of the turn', () => driver.find('[data-testid="assistant-message"] [data-testid="usage"]'));
    const strong = await driver.text('[data-testid="assistant-message"] strong');
    assert.equal(strong, 'desktop');
    await until('the math drawn as MathML', () => driver.find('[data-testid="assistant-message"] math msup'));
    const calls = await modelCalls(provider.url);
    assert.ok(JSON.stringify(calls.at(-1)).includes('Say hello'), 'the model received the message');
    await driver.screenshot(join(resultsDir, 'desktop-chat.png'));
  } catch (error) {
    // What the window showed, for the failure report.
    await driver.screenshot(join(resultsDir, 'desktop-chat-failed.png')).catch(() => {});
    const shown = await driver.exec('return document.body.innerText').catch(() => '');
    throw new Error(`${error.message}\nthe window showed:\n${shown}`);
  } finally {
    await driver.quit();
    stop(driver.child);
  }
});

/** The lines of text in the log's view, by the page's layout: `[top, bottom]` in window pixels. */
const LOG_LINES = `
  const log = document.querySelector('[data-testid="message-list"]');
  const box = log.getBoundingClientRect();
  const lines = [];
  const walker = document.createTreeWalker(log, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.data.trim()) continue;
    range.selectNodeContents(node);
    for (const r of range.getClientRects()) {
      if (r.width > 0 && r.bottom > box.top && r.top < box.bottom) lines.push([r.top, r.bottom]);
    }
  }
  return { box: [box.left, box.top, box.right, box.bottom], lines, x: window.screenX, y: window.screenY + window.outerHeight - window.innerHeight };`;

/**
 * The page's lines in the log's view against the window's pixels: lines the window shows no
 * ink for (`missing`, lines cut to a few pixels at the view's edge left out), rows of ink where
 * the page has no line (`stray`), and the lowest row of ink.
 */
function windowAgainstPage(layout, { width, rgb }) {
  const [left, top, right, bottom] = layout.box.map(Math.round);
  const inked = (y) => {
    const row = (layout.y + y) * width;
    // Text's darkest pixels; the scroll bar at the right edge is left out.
    for (let x = left + 4; x < right - 16; x++) {
      const at = (row + layout.x + x) * 3;
      if (Math.max(rgb[at], rgb[at + 1], rgb[at + 2]) < 140) return true;
    }
    return false;
  };
  const lines = layout.lines.map(([t, b]) => [Math.max(top, Math.floor(t)), Math.min(bottom - 1, Math.ceil(b))]).filter(([t, b]) => b - t >= 8);
  const missing = lines.filter(([t, b]) => {
    for (let y = t; y <= b; y++) if (inked(y)) return false;
    return true;
  });
  const stray = [];
  let lowestInk = null;
  for (let y = top; y < bottom; y++) {
    if (!inked(y)) continue;
    lowestInk = y;
    if (!layout.lines.some(([t, b]) => y >= t - 2 && y <= b + 2)) stray.push(y);
  }
  return { lines, missing, stray, lowestInk, lowestLine: lines.length ? Math.max(...lines.map(([, b]) => b)) : null };
}

test('a fast answer is drawn in the window as it streams, where the page has it', async () => {
  // About 4,500 words and lines of code at some 1,000 a second, with a pause of a few seconds in
  // the middle. What the window shows is read off the X display, as a person sees it, against
  // the page's layout, which no test of the DOM can do. Every word differs: a jump changes pixels.
  const pieces = [];
  let part = 0;
  const addPart = () => {
    part += 1;
    pieces.push(`\n\nPart ${part}\n\n`);
    for (let i = 0; i < 60; i++) pieces.push(`p${part}w${i} `);
    // Code grows the answer a line a piece: a drawing adds more than the room left below it.
    pieces.push('\n\n```rust\n');
    for (let i = 0; i < 20; i++) pieces.push(`let p${part}x${i} = ${i};\n`);
    pieces.push('```\n');
  };
  while (pieces.length < 3000) addPart();
  const lastBeforePause = `p${part}w59`;
  pieces.push({ pause_ms: 6000 });
  while (pieces.length < 4500) addPart();
  const { driver } = await chatApp([textReply(pieces, 1)]);
  const streaming = () => driver.exec('return document.querySelector(\'[data-testid="assistant-message"] [data-testid="usage"]\') === null;');
  try {
    await driver.type('[data-testid="composer-input"]', 'Write a long answer\uE007');
    await until('the answer under way', async () => (await lastAnswer(driver)).length > 3000);
    // While it streams, the window's lowest text is where the page's was just before or just
    // after the window was read (the log may have jumped in between).
    const first = driver.display().rgb;
    const samples = [];
    for (let i = 0; i < 6; i++) {
      const before = await driver.exec(LOG_LINES);
      const display = driver.display();
      const after = await driver.exec(LOG_LINES);
      const { lowestInk: ink, lowestLine: b } = windowAgainstPage(before, display);
      const a = windowAgainstPage(after, display).lowestLine;
      samples.push({ ink, page: [b, a], kept: ink !== null && b !== null && a !== null && ink >= Math.min(b, a) - 6 && ink <= Math.max(b, a) + 6 });
      await sleep(150);
    }
    assert.ok(samples.filter((s) => s.kept).length >= 4, `the window's lowest text against the page's: ${JSON.stringify(samples)}`);
    // Each jump of the log leaves the newest text a quarter of the view down (follow.ts), with
    // what came before it above, and it grows from there: not at the view's top edge over an
    // empty view. (A parse arriving after a jump can pull it up a little: the median.)
    const [, viewTop, , viewBottom] = (await driver.exec(LOG_LINES)).box;
    const ends = samples.flatMap((s) => s.page).filter((y) => y !== null).map((y) => y - viewTop).sort((x, y) => x - y);
    const end = ends[Math.floor(ends.length / 2)] ?? 0;
    assert.ok(end >= 0.15 * (viewBottom - viewTop), `the newest text ended ${Math.round(end)} px into a view ${Math.round(viewBottom - viewTop)} px tall (the median of ${ends.length} readings)`);
    const second = driver.display().rgb;
    let changed = 0;
    for (let i = 0; i + 2 < first.length; i += 3) {
      if (first[i] !== second[i] || first[i + 1] !== second[i + 1] || first[i + 2] !== second[i + 2]) changed += 1;
    }
    // A blinking caret and the answer's busy mark change a few hundred pixels at most.
    assert.ok(changed > 5000, `a second into a fast answer, only ${changed} pixels of the window changed`);

    // In the pause the page's text stands still: the window shows each of its lines in view,
    // and nothing where the page has none (the room the log keeps below a streaming answer).
    await until('the pause in the answer', async () => (await lastAnswer(driver)).includes(lastBeforePause), 60_000);
    assert.equal(await streaming(), true, 'the answer was still streaming at the pause');
    await sleep(1500);
    const layout = await driver.exec(LOG_LINES);
    const { lines, missing, stray } = windowAgainstPage(layout, driver.display());
    await driver.screenshot(join(resultsDir, 'desktop-fast-answer-pause.png'));
    assert.ok(lines.length > 5, `${lines.length} lines of the answer in view at the pause`);
    assert.deepEqual(missing, [], 'lines of the page in view that the window does not show');
    assert.ok(stray.length <= 4, `the window shows ink at ${stray.length} rows where the page has no line: ${stray.slice(0, 10)}`);

    await until('the end of the answer', async () => !(await streaming()), 120_000);
  } catch (error) {
    throw await shown(driver, error, 'desktop-fast-answer');
  } finally {
    await driver.quit();
    stop(driver.child);
  }
});

test('a file picked through the dialog reaches the model as its content, never as a path', async () => {
  const folder = dataDir();
  const notes = join(folder, 'notes.md');
  writeFileSync(notes, '# Plan\n\nMeet at ten in room 4.\n');
  // The dialog the test stands in for: prints the chosen path, as the person would pick it.
  const dialog = join(folder, 'pick.sh');
  writeFileSync(dialog, `#!/bin/sh\necho "$@" > "${folder}/dialog-args"\necho "${notes}"\n`);
  chmodSync(dialog, 0o755);
  const { provider, driver } = await chatApp(
    [toolCallReply('call_pick', 'file_picker', { accept: '.md,.txt' }), textReply(['You meet at ten.'])],
    { TESSERA_FILE_DIALOG: dialog },
  );
  try {
    await driver.type('[data-testid="composer-input"]', 'Read my notes\uE007');
    await until('the answer after the pick', async () => (await lastAnswer(driver)).includes('You meet at ten.'));
    assert.match(readFileSync(join(folder, 'dialog-args'), 'utf8'), /open --filter \.md,\.txt:md,txt/);
    const calls = await modelCalls(provider.url);
    const sent = JSON.stringify(calls.at(-1));
    assert.ok(sent.includes('Meet at ten in room 4.'), 'the model received the content');
    assert.ok(sent.includes('notes.md'), 'and the file name');
    assert.ok(!sent.includes(folder), 'but never the path');
    await driver.screenshot(join(resultsDir, 'desktop-file-pick.png'));
  } catch (error) {
    throw await shown(driver, error, 'desktop-file-pick');
  } finally {
    await driver.quit();
    stop(driver.child);
  }
});

test('a screen capture with consent is a PNG of the screen, shown in the chat and sent to the model', async () => {
  // A known colour over the screen, as a wallpaper (the app's window, started after it, covers
  // the top left only).
  const backdrop = spawn('/usr/bin/python3', [join(here, 'helpers', 'backdrop.py'), '12ab34', 1280, 900], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(backdrop);
  await new Promise((resolve, reject) => {
    backdrop.stdout.on('data', (chunk) => String(chunk).includes('ready') && resolve());
    backdrop.on('exit', (code) => reject(new Error(`the backdrop ended (${code})`)));
  });
  // A model name of a family that takes images, so the screenshot goes to it as one.
  const { provider, data, driver } = await chatApp(
    [toolCallReply('call_shot', 'screen_capture', { target: 'screen' }), textReply(['The screen is green.'])],
    {},
    'gpt-4o-scripted',
  );
  try {
    await driver.type('[data-testid="composer-input"]', 'What is on my screen?\uE007');
    await until('the consent dialog', () => driver.find('[data-testid="consent-dialog"]'));
    assert.equal(await driver.text('[data-testid="consent-tool"]'), 'screen_capture');
    const [x, y] = await driver.exec('return [window.screenX, window.screenY]');
    const appAt = { x, y };
    await driver.clickButton('Allow once');
    await until('the answer after the capture', async () => (await lastAnswer(driver)).includes('The screen is green.'));

    const calls = await modelCalls(provider.url);
    const sent = JSON.stringify(calls.at(-1));
    const sha = /"sha256\\?":\s*\\?"([0-9a-f]{64})/.exec(sent)?.[1];
    assert.ok(sha, 'the tool result names the stored screenshot');
    const png = decodePng(readFileSync(join(data, 'attachments', sha)));
    assert.deepEqual([png.width, png.height], [1280, 900]);
    assert.deepEqual(png.pixel(1270, 890), [0x12, 0xab, 0x34], 'the stored PNG shows the screen');
    // What was under Tessera, not Tessera: the consent dialog the person had just answered was
    // in every capture, over the app, and the model was sent that.
    let ours = 0;
    for (let y = 0; y < png.height; y += 4) {
      for (let x = 0; x < png.width; x += 4) {
        const [r, g, b] = png.pixel(x, y);
        if (r !== 0x12 || g !== 0xab || b !== 0x34) ours += 1;
      }
    }
    assert.equal(ours, 0, `the capture shows the screen without Tessera's window (${ours} sampled pixels are not the screen's colour)`);
    // And the window is back where it was once the capture is taken.
    const after = driver.display();
    const at = (x, y) => [...after.rgb.subarray((y * after.width + x) * 3, (y * after.width + x) * 3 + 3)];
    assert.notDeepEqual(at(appAt.x + 20, appAt.y + 20), [0x12, 0xab, 0x34], 'the window is shown again after the capture');
    assert.deepEqual(await driver.exec('return [window.screenX, window.screenY]'), [appAt.x, appAt.y], 'the window is back where it stood');

    const dataUrl = /data:image\/png;base64,([A-Za-z0-9+/=]+)/.exec(sent)?.[1];
    assert.ok(dataUrl, 'the model received the screenshot as an image');
    assert.deepEqual(decodePng(Buffer.from(dataUrl, 'base64')).pixel(1270, 890), [0x12, 0xab, 0x34]);

    // The picture a person sees: loaded with its natural size, showing the painted colour.
    await until('the screenshot in the chat', () => driver.find('[data-testid="tool-card"] img'));
    const shownImage = await until('the screenshot loaded with its pixels', async () => {
      const seen = await driver.exec(
        'const img = document.querySelector(\'[data-testid="tool-card"] img\');' +
          'if (!img || !img.complete || img.naturalWidth === 0) return null;' +
          'const c = document.createElement("canvas"); c.width = img.naturalWidth; c.height = img.naturalHeight;' +
          'const g = c.getContext("2d"); g.drawImage(img, 0, 0);' +
          'const p = g.getImageData(1270, 890, 1, 1).data;' +
          'img.scrollIntoView({ block: "center" }); const r = img.getBoundingClientRect();' +
          'const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);' +
          'return { w: img.naturalWidth, h: img.naturalHeight, pixel: [p[0], p[1], p[2]],' +
          '  shownWidth: r.width, shownHeight: r.height, onTop: top === img };',
      );
      return seen ?? false;
    });
    assert.deepEqual([shownImage.w, shownImage.h], [1280, 900], 'the picture has its natural size');
    assert.deepEqual(shownImage.pixel, [0x12, 0xab, 0x34], 'the picture shows the painted screen');
    assert.ok(shownImage.shownWidth > 40 && shownImage.shownHeight > 20, `the picture takes room in the chat: ${JSON.stringify(shownImage)}`);
    assert.ok(shownImage.onTop, 'the picture is what a person sees there, not hidden or covered');
    await driver.screenshot(join(resultsDir, 'desktop-screen-capture.png'));
  } catch (error) {
    throw await shown(driver, error, 'desktop-screen-capture');
  } finally {
    await driver.quit();
    stop(driver.child);
    stop(backdrop);
  }
});

function linkedFromDepends(t, binary) {
  let owner;
  try {
    owner = execFileSync('dpkg', ['-S', binary], { encoding: 'utf8' }).split(':')[0].trim();
  } catch {
    t.skip(`${binary} was not installed from a package`);
    return;
  }
  const depends = execFileSync('dpkg-query', ['-W', '-f=${Depends}', owner], { encoding: 'utf8' })
    .split(',')
    .flatMap((alternatives) => alternatives.split('|'))
    .map((d) => d.trim().split(/[\s(]/)[0].replace(/:.*$/, ''));
  const needed = execFileSync('objdump', ['-p', binary], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l.trim().startsWith('NEEDED'))
    .map((l) => l.trim().split(/\s+/)[1]);
  assert.ok(needed.length > 5, 'the binary lists the libraries it needs');
  const resolved = new Map();
  for (const line of execFileSync('ldd', [binary], { encoding: 'utf8' }).split('\n')) {
    const arrow = /^\s*(\S+) => (\S+)/.exec(line);
    const direct = /^\s*(\/\S+) \(/.exec(line);
    if (arrow) resolved.set(arrow[1], arrow[2]);
    else if (direct) resolved.set(direct[1].split('/').pop(), direct[1]);
  }
  const missing = [];
  for (const lib of needed) {
    const file = resolved.get(lib);
    assert.ok(file, `${lib} resolves to a file`);
    const real = execFileSync('readlink', ['-f', file], { encoding: 'utf8' }).trim();
    let pkg = '';
    for (const candidate of [real, file, real.replace(/^\/usr/, ''), `/usr${real}`]) {
      try {
        pkg = execFileSync('dpkg', ['-S', candidate], { encoding: 'utf8' }).split(':')[0].trim();
        break;
      } catch {
        // not this spelling of the path (merged /usr)
      }
    }
    assert.ok(pkg, `${lib} (${real}) belongs to a package`);
    if (!depends.includes(pkg)) missing.push(`${lib} from ${pkg}`);
  }
  assert.deepEqual(missing, [], `Depends: ${depends.join(', ')}`);
}

test('every library the installed binary links against comes from a package the .deb depends on', (t) => {
  linkedFromDepends(t, app);
});

// The local-model worker goes in the same package, beside the app (llama.cpp links OpenMP).
test('so does every library of the local-model worker installed beside it', (t) => {
  const worker = join(dirname(app), 'tessera-llama');
  if (!existsSync(worker)) {
    if (process.env.TESSERA_REQUIRE_LOCAL_MODEL === '1') assert.fail(`${worker} is not installed beside the app`);
    t.skip(`${worker} is not installed (a package built without the worker)`);
    return;
  }
  linkedFromDepends(t, worker);
});

test('the package adds a menu entry with the icon that starts the installed app', (t) => {
  let owner;
  try {
    owner = execFileSync('dpkg', ['-S', app], { encoding: 'utf8' }).split(':')[0].trim();
  } catch {
    t.skip(`${app} was not installed from a package`);
    return;
  }
  const files = execFileSync('dpkg', ['-L', owner], { encoding: 'utf8' }).split('\n');
  const entry = files.find((f) => f.startsWith('/usr/share/applications/') && f.endsWith('.desktop'));
  assert.ok(entry, 'a .desktop file is installed');
  const text = readFileSync(entry, 'utf8');
  assert.match(text, /^Exec=tessera-desktop\b/m);
  assert.match(text, /^Name=Tessera$/m);
  const icon = /^Icon=(.+)$/m.exec(text)?.[1];
  assert.ok(icon, 'the entry names an icon');
  assert.ok(
    files.some((f) => f.startsWith('/usr/share/icons/') && f.endsWith(`/${icon}.png`)),
    `the icon ${icon} is installed with the package`,
  );
});

test('a form pending when the app closed is there and submittable when it opens again', async () => {
  const form = {
    title: 'Your trip',
    schema: {
      type: 'object',
      required: ['email', 'nights'],
      properties: { email: { type: 'string', format: 'email', title: 'Email' }, nights: { type: 'integer', minimum: 1, title: 'Nights' } },
    },
  };
  const { provider, data, driver } = await chatApp([toolCallReply('call_form', 'request_form', form), textReply(['Booked for 2 nights.'])]);
  let again;
  try {
    await driver.type('[data-testid="composer-input"]', 'Book a room\uE007');
    await until('the form', () => driver.find('[data-testid="form-card"]'));
  } finally {
    // The app ends without a word (tauri-driver stops it): nothing may be lost.
    await driver.quit();
    stop(driver.child);
  }
  // One engine per data folder: the next start waits for the last one to be gone. When the
  // driver left it running, it is killed outright: a crash loses nothing either.
  const ended = await until('the first app to end', () => appPid(data) === null, 5000).catch(() => false);
  if (!ended) {
    const pid = appPid(data);
    if (pid) process.kill(pid, 'SIGKILL');
    await until('the first app to be killed', () => appPid(data) === null);
  }
  try {
    again = await openApp('en_US.UTF-8', ['--data-dir', data, '--kind', 'openai', '--base-url', `${provider.url}/v1`, '--model', MODEL]);
    const item = await until('the conversation in the list', async () => {
      const v = await again.call('POST', again.s('/element'), { using: 'xpath', value: "//nav//*[self::button or self::a][contains(., 'Book a room')]" });
      return Object.values(v)[0];
    });
    await again.call('POST', again.s(`/element/${item}/click`), {});
    await until('the form, still pending', () => again.find('[data-testid="form-card"]'));
    await again.type('[data-testid="form-card"] input[name="email"], [data-testid="form-card"] input', 'ada@example.com');
    const inputs = await again.call('POST', again.s('/elements'), { using: 'css selector', value: '[data-testid="form-card"] input' });
    await again.call('POST', again.s(`/element/${Object.values(inputs[1])[0]}/value`), { text: '2\uE007' });
    await until('the answer after the form', async () => (await lastAnswer(again)).includes('Booked for 2 nights.'));
    const calls = await modelCalls(provider.url);
    assert.match(JSON.stringify(calls.at(-1)), /ada@example\.com/, 'the model received the values');
  } catch (error) {
    if (again) throw await shown(again, error, 'desktop-form-restart');
    throw error;
  } finally {
    await again?.quit();
    if (again) stop(again.child);
  }
});

test('with no Secret Service the settings say so once and a key saved after choosing the key file is kept', async () => {
  // This suite's session bus has no keyring daemon: the keyring cannot be reached.
  const data = dataDir();
  const driver = await openApp('en_US.UTF-8', ['--data-dir', data]);
  const key = `sk-desktop-key-file-${process.pid}-5a6b7c8d`;
  try {
    await driver.click('[data-testid="open-settings"]');
    await until('the settings sections', () => driver.find('nav[aria-label="Settings sections"]'));
    await driver.exec(
      'const nav = document.querySelector(\'nav[aria-label="Settings sections"]\');' +
        '[...nav.querySelectorAll("button")].find((b) => b.textContent.trim() === "Providers").click();',
    );
    await until('the keyring notice', () => driver.find('[data-testid="secret-store-notice"]'));
    const notice = await driver.text('[data-testid="secret-store-notice"]');
    assert.match(notice, /system keyring cannot be reached/);
    assert.match(notice, /less safe/i);
    assert.equal(
      await driver.exec('return document.querySelectorAll(\'[data-testid="secret-store-notice"]\').length'),
      1,
      'said once',
    );
    await driver.screenshot(join(resultsDir, 'desktop-keyring-unreachable.png'));
    await driver.click('[data-testid="secret-store-choose"]');
    await until('the key file in use', async () =>
      /kept in the key file/.test(await driver.text('[data-testid="secret-store-notice"]')),
    );
    assert.ok(existsSync(join(data, 'secrets.json')), 'the key file was made in the data folder');

    // A key for the Qwen preset, saved through the form.
    await driver.exec(
      'const list = document.querySelector(\'[data-testid="provider-list"]\');' +
        '[...list.querySelectorAll(".settings-list-name")].find((n) => n.textContent.trim() === "qwen").closest("button").click();',
    );
    await until('the key form', () => driver.find('form[aria-label="API key of qwen"]'));
    await driver.type('form[aria-label="API key of qwen"] input[type="password"]', `${key}\uE007`);
    await until('the key stored', async () => (await driver.text('form[aria-label="API key of qwen"]')).includes('Key stored'));
    const file = readFileSync(join(data, 'secrets.json'), 'utf8');
    assert.ok(file.includes(key), 'the key is in the key file');
    assert.equal(statSync(join(data, 'secrets.json')).mode & 0o777, 0o600, 'readable by the person alone');
    await driver.screenshot(join(resultsDir, 'desktop-key-file.png'));
  } catch (error) {
    throw await shown(driver, error, 'desktop-key-file');
  } finally {
    await driver.quit();
    stop(driver.child);
  }
});

test('an export goes through the save dialog to where the person chose, and the app says where', async () => {
  const folder = dataDir();
  const target = join(folder, 'chosen', 'Trip.md');
  mkdirSync(join(folder, 'chosen'));
  // The save dialog the test stands in for: records what it was asked, answers with a path.
  const dialog = join(folder, 'save.sh');
  writeFileSync(dialog, `#!/bin/sh\necho "$@" > "${folder}/dialog-args"\necho "${target}"\n`);
  chmodSync(dialog, 0o755);
  const { driver } = await chatApp([textReply(['Oslo in March is cold.'])], { TESSERA_FILE_DIALOG: dialog });
  try {
    await driver.type('[data-testid="composer-input"]', 'Plan a trip to Oslo\uE007');
    await until('the answer', async () => (await lastAnswer(driver)).includes('Oslo in March is cold.'));
    // The menu button shows on hover; a click from script is what a keyboard user's Enter does.
    await driver.exec('document.querySelector(\'[data-testid="sidebar"] button[aria-label^="Actions for"]\').click()');
    await until('the conversation menu', () => driver.find('[data-testid="conversation-menu"]'));
    await driver.exec('document.querySelector(\'[data-testid="conversation-menu"] [data-action="exportMarkdown"]\').click()');
    await until('the file written', () => existsSync(target));
    const written = readFileSync(target, 'utf8');
    assert.match(written, /Plan a trip to Oslo/);
    assert.match(written, /Oslo in March is cold\./);
    assert.match(readFileSync(join(folder, 'dialog-args'), 'utf8'), /^save .*--name .+\.md/);
    await until('where it went, said', async () =>
      (await driver.text('[data-testid="export-notice"]')).includes(target),
    );
    // "Dismiss" stays on one line beside a long path.
    const oneLine = await driver.exec(
      'const b = document.querySelector(\'[data-testid="export-notice"] button\'); const r = b.getBoundingClientRect();' +
        'return r.height < parseFloat(getComputedStyle(b).fontSize) * 2;',
    );
    assert.equal(oneLine, true, 'the Dismiss button is one line');
    await driver.screenshot(join(resultsDir, 'desktop-export.png'));
  } catch (error) {
    throw await shown(driver, error, 'desktop-export');
  } finally {
    await driver.quit();
    stop(driver.child);
  }
});

test('the keyboard shortcuts work in the desktop app: Ctrl+K, ?, Ctrl+Shift+C, Esc and Ctrl+N', async () => {
  const pieces = Array.from({ length: 30 }, (_, i) => `slow${i} `);
  const { driver } = await chatApp([textReply(['Copy ', 'me.']), textReply(pieces, 300)]);
  const active = () => driver.exec('const a = document.activeElement; return a ? (a.getAttribute("data-testid") || a.getAttribute("type") || a.tagName) : "";');
  try {
    await driver.type('[data-testid="composer-input"]', 'First\uE007');
    await until('the first answer', async () => (await lastAnswer(driver)).includes('Copy me.'));
    // Ctrl+K: the search field.
    await driver.keys('\uE009', 'k');
    await until('the search field focused', async () => (await active()) === 'conversation-search');
    // ? outside a text field: the list of shortcuts; Esc closes it.
    await driver.exec('document.activeElement.blur()');
    await driver.keys('?');
    await until('the shortcuts sheet', () => driver.find('[data-testid="shortcuts-sheet"]'));
    await driver.screenshot(join(resultsDir, 'desktop-shortcuts.png'));
    await driver.keys('\uE00C');
    await until('the sheet closed', async () => !(await driver.exec('return !!document.querySelector(\'[data-testid="shortcuts-sheet"]\')')));
    // Ctrl+Shift+C: the last answer is copied (the app says so).
    await driver.keys('\uE009', '\uE008', 'c');
    const note = () => driver.exec('return document.querySelector(\'[data-testid="shortcut-note"]\').textContent');
    await until('the copy announced', async () => (await note()) === 'The last answer was copied');
    // Esc stops a running answer.
    await driver.type('[data-testid="composer-input"]', 'Second\uE007');
    await until('the second answer streaming', async () => (await lastAnswer(driver)).includes('slow1'));
    await driver.keys('\uE00C');
    await until('the answer stopped', () => driver.find('[data-testid="run-cancelled"]'));
    // Ctrl+N: a new conversation, the cursor in the composer.
    await driver.keys('\uE009', 'n');
    await until('a new conversation', async () =>
      (await driver.exec('return document.querySelectorAll(\'[data-testid="assistant-message"]\').length')) === 0,
    );
    assert.equal(await active(), 'composer-input');
  } catch (error) {
    throw await shown(driver, error, 'desktop-shortcuts');
  } finally {
    await driver.quit();
    stop(driver.child);
  }
});
