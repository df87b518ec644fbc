// What crosses the window's edge, tried as a person does it in the installed app under Xvfb: a
// file dragged in from another application, a link opened in the default browser, what the app
// copies still there to paste elsewhere, a copied picture pasted in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { textReply, toolCallReply, modelCalls } from '../../ui/e2e/scripted.mjs';
import { encodePng } from './png.mjs';
import { app, appPid, sleep, until } from './support.mjs';
import { desktopSuite, lastAnswer, resultsDir, shown, stop } from './suite.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const { children, dataDir, chatApp } = desktopSuite();

const xdotool = (...args) => execFileSync('xdotool', args.map(String));
const clipboardText = () => execFileSync('xclip', ['-o', '-selection', 'clipboard'], { encoding: 'utf8', timeout: 5000 });

/** Where the window's page sits on the screen: the point `(x, y)` of the page, in screen pixels. */
async function onScreen(driver, x, y) {
  const [left, top] = await driver.exec('return [window.screenX, window.screenY + window.outerHeight - window.innerHeight]');
  return [left + x, top + y];
}

test('a file dragged from another application onto the window is attached and reaches the model', async () => {
  const folder = dataDir('tessera-drop-');
  const file = join(folder, 'notes-from-elsewhere.txt');
  writeFileSync(file, 'The meeting moved to Thursday.\n');
  const { provider, driver } = await chatApp([textReply(['Thursday it is.'])]);
  const source = spawn('/usr/bin/python3', [join(here, 'helpers', 'drag-source.py'), file, 1130, 740], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(source);
  try {
    await new Promise((resolve, reject) => {
      source.stdout.on('data', (chunk) => String(chunk).includes('ready') && resolve());
      source.on('exit', (code) => reject(new Error(`the drag source ended (${code})`)));
    });
    const [x, y] = await onScreen(driver, 400, 300);
    // A hand's drag: press on the file, move past the drag threshold, over the window, let go.
    xdotool('mousemove', 1195, 795);
    await sleep(200);
    xdotool('mousedown', 1);
    for (const [mx, my] of [[1185, 785], [1170, 770], [1100, 700], [900, 550], [x + 10, y + 10], [x, y]]) {
      xdotool('mousemove', mx, my);
      await sleep(120);
    }
    await until('the window shows it will take the file', () =>
      driver.exec('return document.querySelector(\'.composer-box\')?.dataset.dragging === "true"'),
    );
    await driver.screenshot(join(resultsDir, 'desktop-drop-over.png'));
    xdotool('mouseup', 1);
    await until('the dropped file as a chip in the composer', async () =>
      (await driver.exec('return [...document.querySelectorAll(\'[data-testid="composer-file"]\')].map((e) => e.textContent).join("|")')).includes('notes-from-elsewhere.txt'),
    );
    assert.equal(await driver.exec('return document.querySelector(\'.composer-box\')?.dataset.dragging ?? null'), null, 'the highlight goes with the drop');
    await driver.screenshot(join(resultsDir, 'desktop-drop.png'));
    await driver.type('[data-testid="composer-input"]', 'What does it say?\uE007');
    await until('the answer', async () => (await lastAnswer(driver)).includes('Thursday it is.'));
    const sent = JSON.stringify((await modelCalls(provider.url)).at(-1));
    assert.ok(sent.includes('The meeting moved to Thursday.'), 'the model received the dropped file\'s content');
  } catch (error) {
    throw await shown(driver, error, 'desktop-drop');
  } finally {
    stop(source);
    await driver.quit();
    stop(driver.child);
  }
});

/** A default browser for the app's session: a program that writes down each address it is given. */
function recordingBrowser() {
  const dir = dataDir('tessera-browser-');
  mkdirSync(join(dir, 'data', 'applications'), { recursive: true });
  mkdirSync(join(dir, 'config'), { recursive: true });
  const opened = join(dir, 'opened');
  const program = join(dir, 'browser.sh');
  writeFileSync(program, `#!/bin/sh\nprintf '%s\\n' "$1" >> '${opened}'\n`);
  chmodSync(program, 0o755);
  writeFileSync(
    join(dir, 'data', 'applications', 'recording-browser.desktop'),
    `[Desktop Entry]\nType=Application\nName=Recording browser\nExec=${program} %u\nMimeType=x-scheme-handler/https;x-scheme-handler/http;\n`,
  );
  writeFileSync(
    join(dir, 'config', 'mimeapps.list'),
    '[Default Applications]\nx-scheme-handler/https=recording-browser.desktop\nx-scheme-handler/http=recording-browser.desktop\n',
  );
  return { env: { XDG_DATA_HOME: join(dir, 'data'), XDG_CONFIG_HOME: join(dir, 'config') }, opened: () => (existsSync(opened) ? readFileSync(opened, 'utf8').trim().split('\n') : []) };
}

test('a link in an answer opens in the default browser, its full address shown first', async () => {
  const browser = recordingBrowser();
  const address = 'https://example.com/report?id=7';
  const { driver } = await chatApp([textReply(['Read ', `[the report](${address})`, ' first, or https://example.org/plain.'])], browser.env);
  try {
    await driver.type('[data-testid="composer-input"]', 'Where is it?\uE007');
    await until('the answer', async () => (await lastAnswer(driver)).includes('first'));
    const hrefs = 'return [...document.querySelectorAll(\'[data-testid="assistant-message"] a\')].map((a) => a.getAttribute("href")).join(" ")';
    await until('the answer\'s links drawn', async () => (await driver.exec(hrefs)) === `${address} https://example.org/plain`);
    await driver.click(`[data-testid="assistant-message"] a[href="${address}"]`);
    await until('the full address, before anything opens', () => driver.find('[data-testid="link-confirm"]'));
    assert.equal(await driver.text('[data-testid="link-address"]'), address);
    assert.deepEqual(browser.opened(), [], 'nothing opened before the person said so');
    await driver.screenshot(join(resultsDir, 'desktop-link-confirm.png'));
    await driver.clickButton('Open in browser');
    await until('the browser given the address', () => browser.opened().includes(address), 10000);
    // A link whose text is its address opens at once.
    await driver.click('[data-testid="assistant-message"] a[href="https://example.org/plain"]');
    await until('the second address opened', () => browser.opened().includes('https://example.org/plain'), 10000);
  } catch (error) {
    throw await shown(driver, error, 'desktop-link');
  } finally {
    await driver.quit();
    stop(driver.child);
  }
});

test('a picture copied in another application and pasted with Ctrl+V is attached', async () => {
  const folder = dataDir('tessera-paste-');
  const picture = join(folder, 'copied.png');
  const rgb = Buffer.alloc(40 * 30 * 3);
  for (let i = 0; i < rgb.length; i += 3) rgb.set([0xd0, 0x20, 0x30], i);
  writeFileSync(picture, encodePng(40, 30, rgb));
  const { driver } = await chatApp([]);
  // xclip keeps the picture on the clipboard, as the program it was copied in would.
  const owner = spawn('xclip', ['-selection', 'clipboard', '-t', 'image/png', '-i', picture], { stdio: 'ignore' });
  children.push(owner);
  try {
    await driver.click('[data-testid="composer-input"]');
    await sleep(300);
    await driver.keys('\uE009', 'v');
    const thumbnail = await until('the pasted picture in the composer, with its pixels', () =>
      driver.exec(
        'const img = document.querySelector(\'[data-testid="composer-file"] img\');' +
          'return img && img.complete && img.naturalWidth ? { w: img.naturalWidth, h: img.naturalHeight, name: img.closest("li").textContent } : null;',
      ),
    );
    assert.deepEqual([thumbnail.w, thumbnail.h], [40, 30]);
    assert.ok(thumbnail.name.includes('pasted.png'), thumbnail.name);
    await driver.screenshot(join(resultsDir, 'desktop-paste-picture.png'));
  } catch (error) {
    throw await shown(driver, error, 'desktop-paste');
  } finally {
    stop(owner);
    await driver.quit();
    stop(driver.child);
  }
});

test('what the app copies can be pasted elsewhere: a code block\'s Copy, clipboard_write with consent, Copy diagnostics', async () => {
  const { driver } = await chatApp([
    textReply(['Run this:\n\n```sh\necho copied-from-code\n```\n']),
    toolCallReply('call_clip', 'clipboard_write', { text: 'written by the agent' }),
    textReply(['It is on your clipboard.']),
  ]);
  try {
    await driver.type('[data-testid="composer-input"]', 'What do I run?\uE007');
    await until('the code block', () => driver.find('[data-testid="copy-code"]'));
    await driver.click('[data-testid="copy-code"]');
    await until('the code on the clipboard', () => clipboardText().trim() === 'echo copied-from-code', 10000);

    await driver.type('[data-testid="composer-input"]', 'Put it on my clipboard\uE007');
    await until('the consent dialog', () => driver.find('[data-testid="consent-dialog"]'));
    await driver.clickButton('Allow once');
    await until('the answer after the write', async () => (await lastAnswer(driver)).includes('It is on your clipboard.'));
    // Well after the tool's call ended, another program still finds the text (no clipboard
    // manager runs here: the app itself must keep what it copied).
    await sleep(500);
    assert.equal(clipboardText(), 'written by the agent');

    // Settings › General › Copy diagnostics, for a bug report.
    await driver.click('[data-testid="open-settings"]');
    await until('the settings sections', () => driver.find('nav[aria-label="Settings sections"]'));
    await driver.exec(
      'const nav = document.querySelector(\'nav[aria-label="Settings sections"]\');' +
        '[...nav.querySelectorAll("button")].find((b) => b.textContent.trim() === "General").click();',
    );
    await driver.click('[data-testid="copy-diagnostics"]');
    await until('the diagnostics on the clipboard', () => clipboardText().includes('"providers"'), 10000);
  } catch (error) {
    throw await shown(driver, error, 'desktop-clipboard');
  } finally {
    await driver.quit();
    stop(driver.child);
  }
});

/** The X windows of process `pid` titled exactly `Tessera`, those shown only if `visible`. */
function tesseraWindows(pid, visible) {
  try {
    const args = ['search', '--all', ...(visible ? ['--onlyvisible'] : []), '--pid', pid, '--name', '^Tessera$'];
    return execFileSync('xdotool', args.map(String), { encoding: 'utf8' }).trim().split('\n').filter(Boolean);
  } catch {
    return []; // xdotool exits 1 when it finds none
  }
}

test('a second start on the same folder brings the open window forward and opens no other', async () => {
  // A window manager, as a person's desktop has: it is what minimises a window.
  const wm = spawn('openbox', ['--sm-disable'], { stdio: 'ignore' });
  children.push(wm);
  await sleep(500);
  const { data, driver } = await chatApp([]);
  const pid = appPid(data);
  try {
    const [window] = await until('the app\'s window', () => tesseraWindows(pid, true).length === 1 && tesseraWindows(pid, true)).catch((error) => {
      throw new Error(`${error.message}: ${JSON.stringify({ all: tesseraWindows(pid, false), visible: tesseraWindows(pid, true) })}`);
    });
    xdotool('windowminimize', window);
    await until('the window minimised', () => tesseraWindows(pid, true).length === 0);
    const said = execFileSync(app, ['--data-dir', data], { encoding: 'utf8', timeout: 20000, env: { ...process.env, LANG: 'en_US.UTF-8' } });
    assert.match(said, /already open/, 'the second start says where the app is');
    await until('the first window forward again', () => tesseraWindows(pid, true).length === 1);
    assert.deepEqual(tesseraWindows(pid, true), [window], 'the window shown is the first one, and no other opened');
    assert.ok(await driver.find('[data-testid="composer-input"]'), 'the first window still works');
  } catch (error) {
    throw await shown(driver, error, 'desktop-second-start');
  } finally {
    await driver.quit();
    stop(driver.child);
    stop(wm);
  }
});

test('a project\'s folder is chosen with the native dialog, and a cited file opens in its app', async () => {
  const folder = dataDir('tessera-project-');
  const notes = join(folder, 'trip notes');
  mkdirSync(notes, { recursive: true });
  const plan = join(notes, 'plan.md');
  writeFileSync(plan, '# Ferry\n\nThe harbour ferry leaves at 07:40 from pier nine.\n');
  // The dialog the test stands in for: a folder when asked for one.
  const dialog = join(folder, 'pick.sh');
  writeFileSync(dialog, `#!/bin/sh\necho "$@" >> "${folder}/dialog-args"\n[ "$1" = folder ] && echo "${notes}"\n`);
  chmodSync(dialog, 0o755);
  // The desktop's app for Markdown records what it was asked to open.
  const viewer = dataDir('tessera-viewer-');
  mkdirSync(join(viewer, 'data', 'applications'), { recursive: true });
  mkdirSync(join(viewer, 'config'), { recursive: true });
  const opened = join(viewer, 'opened');
  const program = join(viewer, 'viewer.sh');
  writeFileSync(program, `#!/bin/sh\nprintf '%s\\n' "$1" >> '${opened}'\n`);
  chmodSync(program, 0o755);
  writeFileSync(join(viewer, 'data', 'applications', 'recording-viewer.desktop'),
    `[Desktop Entry]\nType=Application\nName=Recording viewer\nExec=${program} %f\nMimeType=text/markdown;text/plain;\n`);
  writeFileSync(join(viewer, 'config', 'mimeapps.list'),
    '[Default Applications]\ntext/markdown=recording-viewer.desktop\ntext/plain=recording-viewer.desktop\n');
  const env = { TESSERA_FILE_DIALOG: dialog, XDG_DATA_HOME: join(viewer, 'data'), XDG_CONFIG_HOME: join(viewer, 'config') };
  const { provider, driver } = await chatApp([textReply(['It leaves at 07:40 ', `[${plan}:1-3]`, '.'])], env);
  try {
    await driver.click('[data-testid="open-projects"]');
    await until('the Projects panel', () => driver.find('[data-testid="projects-panel"]'));
    await driver.type('[data-testid="project-name"]', 'Trip');
    await driver.clickButton('Create project');
    await until('the new project', () => driver.find('[data-testid="project-folder-path"]'));
    await driver.clickButton('Choose…');
    await until('the chosen folder in the field', async () =>
      (await driver.exec('return document.querySelector(\'[data-testid="project-folder-path"]\').value')) === notes);
    assert.match(readFileSync(join(folder, 'dialog-args'), 'utf8'), /^folder --title /m);
    await driver.clickButton('Add folder');
    // Its one file read (the panel said "Up to date" before the folder was added too).
    await until('the folder read', async () =>
      /(^|\D)1 files? indexed[\s\S]*Up to date/.test(await driver.exec('return document.querySelector(\'[data-testid="project-view"]\')?.textContent ?? ""')), 30_000);
    await driver.screenshot(join(resultsDir, 'desktop-project-folder.png'));
    // Esc, as a person closes it.
    await driver.type('[data-testid="project-folder-path"]', '\uE00C');
    await until('the panel closed', async () => !(await driver.exec('return !!document.querySelector(\'[data-testid="projects-panel"]\')')));
    await driver.click('[data-testid="project-new-chat"]');
    await driver.type('[data-testid="composer-input"]', 'When does the harbour ferry leave?\uE007');
    await until('the answer', async () => (await lastAnswer(driver)).includes('07:40'));
    const sent = JSON.stringify((await modelCalls(provider.url)).at(-1));
    assert.ok(sent.includes('pier nine'), 'the first prompt of the new chat carried the passage');
    await until('the citation checked', async () =>
      (await driver.exec('return document.querySelector(\'[data-testid="citation-chip"]\')?.dataset.state ?? ""')) === 'verified', 20_000);
    await driver.click('[data-testid="citation-chip"]');
    await driver.clickButton('Open in its app');
    await until('the file given to the desktop\'s app for it', () => existsSync(opened) && readFileSync(opened, 'utf8').includes('plan.md'), 10_000);
    await driver.screenshot(join(resultsDir, 'desktop-citation-pane.png'));
  } catch (error) {
    throw await shown(driver, error, 'desktop-project');
  } finally {
    await driver.quit();
    stop(driver.child);
  }
});
