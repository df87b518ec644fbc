// The desktop app's figures (issue 7): cold start to an interactive window, resident memory of
// all the app's processes idle and after a 20k-token answer, the longest main-thread task while
// that answer streams, and the .deb size. Issue 27: with ten conversations of 300 turns each, the
// time to open one, the longest task while one is scrolled from its end to its top, memory after
// opening the first and after switching through all ten, and how many messages are in the page.
// Prints them, each beside its target; asserts nothing.
//
//   make figures     (release build and .deb, then this under Xvfb)
// or by hand, under a display and a session bus:
//   TESSERA_DESKTOP_BIN=… TESSERA_DEB=… TESSERA_SCRIPTED_PROVIDER_BIN=… TESSERA_BIN=… node scripts/figures.mjs
// TESSERA_BIN is the `tessera` command line (same build), which imports the long conversations
// into the app's data folder before it starts; without it those figures are left out.
// FIGURES_ONLY=long measures issue 27's figures alone; FIGURES_ONLY=stream the page's thread while
// the long answer streams, with and without a frame counter (see `monitor`).
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MODEL, pushReplies, startScriptedProvider } from '../ui/e2e/scripted.mjs';
import { app, appPid, sleep, startDriver, until } from '../tests/desktop/support.mjs';

const STARTS = Number(process.env.FIGURES_STARTS || 5);
const children = [];
const folders = [];

function folder() {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-figures-'));
  folders.push(dir);
  return dir;
}

function stopAll() {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
}
process.on('exit', () => {
  stopAll();
  for (const d of folders) rmSync(d, { recursive: true, force: true });
});

/** Milliseconds from spawning the app to its "interactive" line (the UI painted with data). */
function coldStart() {
  return new Promise((resolve, reject) => {
    const began = performance.now();
    const child = spawn(app, ['--data-dir', folder()], {
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, TESSERA_REPORT_READY: '1' },
    });
    children.push(child);
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('the app did not become interactive within 60 s'));
    }, 60_000);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('interactive after')) {
        clearTimeout(timer);
        const ms = performance.now() - began;
        child.once('exit', () => resolve(ms));
        child.kill('SIGTERM');
      }
    });
    child.once('error', reject);
  });
}

/**
 * A /proc `stat` file: the command name, and the fields after it (counted from the state, so
 * `fields[1]` is the parent, `[7]` minor faults, `[11]`/`[12]` user/system ticks).
 */
function readStat(path) {
  const stat = readFileSync(path, 'utf8');
  return { name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), fields: stat.slice(stat.lastIndexOf(')') + 2).split(' ') };
}

/** User and system CPU of a stat's fields, in ms (100 ticks a second, USER_HZ). */
const cpuMsOf = (fields) => ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;

/** The app's process and every descendant (WebKit's web and network processes). */
function processTree(root) {
  const parents = new Map();
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      parents.set(Number(pid), Number(readStat(`/proc/${pid}/stat`).fields[1]));
    } catch {
      // gone meanwhile
    }
  }
  const tree = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, ppid] of parents) {
      if (tree.has(ppid) && !tree.has(pid)) {
        tree.add(pid);
        grew = true;
      }
    }
  }
  return [...tree];
}

/** Resident memory of `pids` in MB: `rss` counts the shared libraries once per process (WebKit's
 * are large and mapped by each), `pss` shares each page out among the processes using it (what
 * the app costs the machine). */
function memoryMb(pids) {
  let rss = 0;
  let pss = 0;
  /** PSS by process name, to see which process a change helped. */
  const byName = new Map();
  for (const pid of pids) {
    try {
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      const name = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      const own = Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
      rss += Number(/^Rss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
      pss += own;
      byName.set(name, (byName.get(name) ?? 0) + own / 1024);
    } catch {
      // gone meanwhile
    }
  }
  return { rss: rss / 1024, pss: pss / 1024, byName };
}

/** CPU time and minor page faults of the main thread of `pid` (its first thread), from /proc. */
function mainThread(pid) {
  try {
    const { fields } = readStat(`/proc/${pid}/task/${pid}/stat`);
    // schedstat: nanoseconds on a CPU, nanoseconds runnable but waiting for one.
    const [, waitNs] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ').map(Number);
    return { cpuMs: cpuMsOf(fields), waitMs: waitNs / 1e6, faults: Number(fields[7]) };
  } catch {
    return null;
  }
}

/** CPU milliseconds each of the app's processes has used so far, by pid (with its name). */
function processCpu(root) {
  const used = new Map();
  for (const pid of processTree(root)) {
    try {
      const { name, fields } = readStat(`/proc/${pid}/stat`);
      used.set(pid, { name, ms: cpuMsOf(fields) });
    } catch {
      // gone meanwhile
    }
  }
  return used;
}

/** The machine's CPU time so far, in ticks: all of it and what the hypervisor took (steal). */
function machineCpu() {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1, 9).map(Number);
    return { total: fields.reduce((a, b) => a + b, 0), idle: fields[3] + fields[4], steal: fields[7] };
  } catch {
    return null;
  }
}

/** The web process (WebKit's, under the app) whose main thread runs the page. */
function webProcess(root) {
  return processTree(root).find((pid) => {
    try {
      return readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('WebKitWebProces');
    } catch {
      return false;
    }
  });
}

/** A ~20,000-token answer: paragraphs, a list, a table and code, one small piece per chunk. */
function longAnswer() {
  const pieces = [];
  let n = 0;
  while (pieces.length < 20_000) {
    n += 1;
    pieces.push(`\n\n## Part ${n}\n\n`);
    for (let i = 0; i < 60; i++) pieces.push(`word${i} `);
    pieces.push('\n\n- one\n- two\n- three\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```rust\n');
    for (let i = 0; i < 30; i++) pieces.push(`let x${i} = ${i};\n`);
    pieces.push('```\n');
  }
  return pieces.slice(0, 20_000);
}

function textReply(pieces, delayMs) {
  const chunk = (delta, finish = null) => ({
    id: 'chatcmpl-figures', object: 'chat.completion.chunk', created: 0, model: MODEL,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], usage: null,
  });
  const steps = [{ raw: `data: ${JSON.stringify(chunk({ role: 'assistant', content: '' }))}\n\n` }];
  // Ten pieces per chunk every `delayMs`: a fast model's pace (~1,000 tokens a second at 10 ms).
  for (let i = 0; i < pieces.length; i += 10) {
    steps.push({ delay_ms: delayMs });
    steps.push({ raw: `data: ${JSON.stringify(chunk({ content: pieces.slice(i, i + 10).join('') }))}\n\n` });
  }
  steps.push({ raw: `data: ${JSON.stringify(chunk({}, 'stop'))}\n\n` });
  steps.push({ raw: 'data: [DONE]\n\n' });
  return { status: 200, headers: [], body: { sse: steps }, delay_ms: 0 };
}

/**
 * The faces (family, size, weight, style) the page's text is laid out in, each with an element
 * using it: WebKit asks fontconfig for a face the first time it lays it out (10–60 ms on the
 * page's thread), so a face first seen while the answer streams is a long task the start-up
 * warm-up (ui/src/components/FontWarmup.tsx) should have taken.
 */
const FACES = `
  const faces = {};
  for (const el of document.querySelectorAll('body *')) {
    if (![...el.childNodes].some((n) => n.nodeType === 3 && n.data.trim()) && !el.matches('li, button')) continue;
    const style = getComputedStyle(el);
    const face = [style.fontFamily.split(',')[0], style.fontSize, style.fontWeight, style.fontStyle].join(' ');
    faces[face] ??= [el.tagName.toLowerCase(), ...el.classList].join('.');
  }
  return faces;`;

/**
 * Watches the page's thread: the longest task (a 5 ms timer that comes late) and the jumps of the
 * log (its scroll events). With `frames`, it also counts frames with a requestAnimationFrame
 * loop; that loop makes WebKit draw every frame, ~70 a second, where the app draws a fast
 * stream 10 times a second (ui/src/chat/drawPacer.ts), so it adds to the busy time it watches
 * (`FIGURES_ONLY=stream` measures both ways, alternated). Off unless FIGURES_FRAMES=1.
 */
function monitor({ frames = process.env.FIGURES_FRAMES === '1' } = {}) {
  return `
  window.__stall = { longest: 0, over50: 0, at: [], frames: ${frames ? 0 : 'null'}, jumps: 0 };
  if (${frames}) {
    const frame = () => {
      window.__stall.frames += 1;
      requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  }
  // Each jump of the log draws its whole view again. Scroll events come with the frame that
  // moved it, so counting them draws nothing.
  document.addEventListener('scroll', (event) => {
    if (event.target instanceof Element && event.target.matches('[data-testid=message-list]')) window.__stall.jumps += 1;
  }, { capture: true, passive: true });
  const start = performance.now();
  let last = start;
  const tick = () => {
    const now = performance.now();
    const late = now - last - 5;
    if (late > window.__stall.longest) window.__stall.longest = late;
    if (late > 50) {
      window.__stall.over50 += 1;
      window.__stall.at.push([Math.round(last - start), Math.round(late)]);
    }
    last = now;
    setTimeout(tick, 5);
  };
  setTimeout(tick, 5);
  return true;`;
}

/** The long conversations (issue 27): how many, of how many turns. */
const LONG_CONVERSATIONS = 10;
const LONG_TURNS = 300;

/**
 * A conversation of `LONG_TURNS` questions and answers as a seed-004 context document (what
 * `tessera context import` reads): answers of a few paragraphs with a list, a code block and a
 * table, so that drawing them costs what a real answer's Markdown costs.
 */
function longConversation(n) {
  const messages = [];
  for (let t = 1; t <= LONG_TURNS; t++) {
    messages.push({ role: 'user', content: `Conversation ${n}, question ${t}: how does stage ${t} of the pipeline handle a batch that arrives late, and what should I watch for?` });
    messages.push({
      role: 'assistant',
      content: [
        `Stage ${t} takes a late batch through the same path as an on-time one, but it **re-checks the watermark** before it commits. The check is cheap: it compares the batch's newest event time with the watermark the stage last published, and it only falls back to a full merge when the batch reaches behind it.`,
        'What to watch for, in order of how often it bites:',
        "- the *lag* between the batch's newest event and the watermark (`lag_ms` in the stage's metrics);\n- retries of the same batch id: each one is idempotent, but a storm of them means the sink is slow;\n- the size of the merge buffer, which grows with every late batch until the next compaction.",
        '```rust\nfn accept(stage: &mut Stage, batch: Batch) -> Result<Commit, StageError> {\n    if batch.newest() < stage.watermark() {\n        return stage.merge_late(batch);\n    }\n    let commit = stage.append(batch)?;\n    stage.publish_watermark(commit.newest());\n    Ok(commit)\n}\n```',
        '| Setting | Default | When to change it |\n|---|---|---|\n| `late_window` | 5 min | batches later than this are dropped |\n| `merge_buffer` | 64 MB | raise it when merges stall |\n| `retries` | 3 | lower it when the sink is shared |',
        `In short: a late batch costs one extra comparison when it is only a little late, and a merge when it is very late. If stage ${t} spends more than a few percent of its time merging, widen \`late_window\` upstream instead of raising the buffer.`,
      ].join('\n\n'),
    });
  }
  return {
    schema_version: '1.0',
    meta: { tessera: { title: `Long conversation ${n}` } },
    session: { session_id: `figures-long-${n}`, messages, task_state: { todo_list: { tasks: [] } } },
    evidences: {},
    context_blocks: [],
  };
}

/** A data folder holding the long conversations, imported with the command line; their ids. */
function longConversationsFolder(cli) {
  const data = folder();
  const documents = folder();
  const ids = [];
  for (let n = 1; n <= LONG_CONVERSATIONS; n++) {
    const file = join(documents, `long-${n}.json`);
    writeFileSync(file, JSON.stringify(longConversation(n)));
    const out = execFileSync(cli, ['--data-dir', data, 'context', 'import', file], { encoding: 'utf8' });
    const id = /imported conversation ([^:\s]+)/.exec(out)?.[1];
    if (!id) throw new Error(`tessera context import printed ${out}`);
    ids.push(id);
  }
  return { data, ids };
}

/**
 * Clicks conversation `id` in the sidebar and notes, in the page, how long until its last answer
 * is in the log's view and the frame after it is painted (in `window.__opened`, ms).
 */
const OPEN = `
  const [id, last] = arguments;
  window.__opened = null;
  const started = performance.now();
  document.querySelector('button[data-conversation-id="' + id + '"]').click();
  const check = () => {
    const log = document.querySelector('[data-testid=message-list]');
    const answers = log ? log.querySelectorAll('[data-testid=assistant-message]') : [];
    const answer = answers.length ? answers[answers.length - 1] : null;
    if (answer && answer.textContent.includes(last)) {
      const a = answer.getBoundingClientRect();
      const l = log.getBoundingClientRect();
      if (a.bottom > l.top && a.top < l.bottom) {
        requestAnimationFrame(() => setTimeout(() => { window.__opened = performance.now() - started; }, 0));
        return;
      }
    }
    requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
  return true;`;

/** Scrolls the log from where it is to its top, a screen every 50 ms (done: `window.__scrolled`, the steps). */
const SCROLL_UP = `
  window.__scrolled = null;
  const log = document.querySelector('[data-testid=message-list]');
  let steps = 0;
  const timer = setInterval(() => {
    log.scrollTop -= log.clientHeight;
    steps += 1;
    if (log.scrollTop <= 0) {
      clearInterval(timer);
      setTimeout(() => { window.__scrolled = steps; }, 500);
    }
  }, 50);
  return true;`;

/** Messages of the conversation in the page (the rest is drawn when scrolled to). */
const MESSAGES_IN_PAGE = `return document.querySelectorAll('[data-testid=message-list] [data-testid=user-message], [data-testid=message-list] [data-testid=assistant-message]').length;`;

/**
 * Issue 27's figures: the app over ten conversations of 300 turns. Opens each in turn from the
 * sidebar (timed), then the first again; memory after the first and at the end; messages in the
 * page; the longest task while the first is scrolled from its end to its top.
 */
async function longConversationFigures(cli) {
  const { data, ids } = longConversationsFolder(cli);
  const driver = await startDriver(children, 'en_US.UTF-8');
  try {
    await driver.newSession(['--data-dir', data]);
    await until('the chat layout', () => driver.find('[data-testid="app-shell"]'));
    await until('the long conversations listed', async () => (await driver.exec(`return document.querySelectorAll('button[data-conversation-id]').length`)) >= ids.length);
    const pid = appPid(data);
    await sleep(2000);
    const opens = [];
    const open = async (id) => {
      await driver.exec(OPEN, [id, `Stage ${LONG_TURNS} takes`]);
      const ms = await until(`conversation ${id} open`, () => driver.exec('return window.__opened;'), 60_000);
      // Settled (the rest of its Markdown drawn) before the next one.
      await sleep(1500);
      return ms;
    };
    // A person's pointer reaches the list before the click: 300 ms of a hand's travel.
    await driver.hover('[data-testid="conversation-list"]');
    await sleep(300);
    opens.push(await open(ids[0]));
    const first = memoryMb(processTree(pid));
    const inPage = await driver.exec(MESSAGES_IN_PAGE);
    for (const id of ids.slice(1)) opens.push(await open(id));
    opens.push(await open(ids[0]));
    await sleep(1500);
    const last = memoryMb(processTree(pid));
    // From the end of the first conversation to its top, watching the page's thread.
    await driver.exec(monitor());
    await driver.exec(SCROLL_UP);
    const steps = await until('the log scrolled to its top', () => driver.exec('return window.__scrolled;'), 300_000);
    const stall = await driver.exec('return window.__stall;');
    const inPageAtTop = await driver.exec(MESSAGES_IN_PAGE);
    return { opens, first, last, inPage, inPageAtTop, steps, stall };
  } finally {
    await driver.quit();
    driver.child.kill('SIGTERM');
  }
}

/** Issue 27's figures, each beside its target. */
function printLong(long) {
  if (long) {
    const f = (x) => x.toFixed(0);
    const parts = (m) => [...m.byName].map(([name, mb]) => `${name} ${f(mb)}`).join(', ');
    const [firstOpen, ...switches] = long.opens;
    const median = [...switches].sort((a, b) => a - b)[Math.floor(switches.length / 2)];
    const growth = ((long.last.pss - long.first.pss) * 100) / long.first.pss;
    console.log(`opening a ${LONG_TURNS}-turn conversation from the sidebar to its last answer painted: median ${f(median)} ms of ${switches.length} switches from another one (target ≤ 300 ms); the first opened ${f(firstOpen)} ms (the pointer on the list 300 ms before the click, as a person's hand reaches it); each: ${long.opens.map(f).join(', ')} ms`);
    console.log(`scrolling it from its end to its top (${long.steps} steps of a screen, one every 50 ms): longest task ${f(long.stall.longest)} ms, ${long.stall.over50} over 50 ms (target: none over 50 ms)`);
    console.log(`  long tasks at (s: ms): ${long.stall.at.map(([t, ms]) => `${(t / 1000).toFixed(1)}: ${ms}`).join(', ') || 'none'}`);
    console.log(`memory of all the app's processes (PSS): after opening the first ${f(long.first.pss)} MB, after switching through all ${LONG_CONVERSATIONS} and back to the first ${f(long.last.pss)} MB: ${growth >= 0 ? '+' : ''}${growth.toFixed(1)} % (target within 10 %)`);
    console.log(`  PSS by process (MB): after the first ${parts(long.first)}; at the end ${parts(long.last)}`);
    console.log(`messages in the page of an open ${LONG_TURNS}-turn conversation (${2 * LONG_TURNS} messages): ${long.inPage} at its end, ${long.inPageAtTop} at its top (target: a few screens' worth)`);
  } else {
    console.log(`long conversations (issue 27): not measured (TESSERA_BIN, the tessera command line, not given)`);
  }
}

/** With TRACE=1: when the stream's parts first showed, in ms after the message (printed). */
const TRACE_SCRIPT = `
    const t0 = performance.now(); window.__trace = []; const seen = new Set();
    const mark = (label) => { if (!seen.has(label)) { seen.add(label); window.__trace.push([Math.round(performance.now() - t0), label]); } };
    new MutationObserver((records) => {
      for (const r of records) {
        const el = r.target.nodeType === 1 ? r.target : r.target.parentElement;
        if (!el) continue;
        if (el.closest('.sidebar')) { if (seen.has('usage shown')) mark('sidebar changed at end'); mark('sidebar changed'); }
        for (const n of r.removedNodes) if (n.nodeType === 1 && (n.matches('[data-testid=assistant-message]') || n.matches('[data-testid=user-message]'))) window.__trace.push([Math.round(performance.now() - t0), 'removed ' + n.getAttribute('data-testid')]);
        if (el.closest('[data-testid=user-message]')) mark('user message');
        if (el.closest('.message-assistant')) mark('answer changed');
        for (const n of r.addedNodes) if (n.nodeType === 1) {
          if (n.matches('[data-testid=conversation]') || n.querySelector?.('[data-testid=conversation]')) mark('conversation pane mounted');
          if (n.matches('pre') || n.querySelector?.('pre')) mark('first code block');
          if (n.matches('table') || n.querySelector?.('table')) mark('first table');
          if (n.matches('.hljs, [class*=hljs]') || n.querySelector?.('[class*=hljs]')) mark('first highlighted code');
          if (n.matches('[data-testid=usage]') || n.querySelector?.('[data-testid=usage]')) mark('usage shown');
          if (n.matches('[data-testid=assistant-message]')) window.__trace.push([Math.round(performance.now() - t0), 'assistant article added']);
          if (n.matches('.answer-actions, [data-testid=answer-actions]') || n.querySelector?.('.answer-actions, [data-testid=answer-actions]')) mark('answer actions');
        }
      }
    }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
    let lastTop = 0; let jumps = 0;
    const watch = () => { const log = document.querySelector('[data-testid=message-list]'); if (log && log.scrollTop !== lastTop) { lastTop = log.scrollTop; jumps++; if (jumps <= 5) window.__trace.push([Math.round(performance.now() - t0), 'jump ' + jumps]); } requestAnimationFrame(watch); };
    requestAnimationFrame(watch);
    return true;`;

/**
 * The 20k-token answer streamed into a fresh app at a fast model's pace, the page's thread
 * watched (`monitor`); `onIdle(pid, driver)` runs once the app has settled, before the message.
 * The driver is left open for the caller to quit.
 */
async function streamLongAnswer(provider, { frames, application, onIdle = async () => {} } = {}) {
  await pushReplies(provider.url, [textReply(longAnswer(), 10)]);
  const data = folder();
  const driver = await startDriver(children, 'en_US.UTF-8', { OPENAI_API_KEY: 'scripted' });
  await driver.newSession(['--data-dir', data, '--kind', 'openai', '--base-url', `${provider.url}/v1`, '--model', MODEL], application);
  await until('the chat layout', () => driver.find('[data-testid="app-shell"]'));
  const pid = appPid(data);
  await sleep(3000);
  await onIdle(pid, driver);
  await driver.exec(monitor({ frames }));
  if (process.env.TRACE) await driver.exec(TRACE_SCRIPT);
  const web = webProcess(pid);
  const webBefore = web ? mainThread(web) : null;
  const machineBefore = machineCpu();
  const cpuBefore = processCpu(pid);
  const began = performance.now();
  await driver.type('[data-testid="composer-input"]', 'Write a long answer\uE007');
  await until('the end of the 20k-token answer', () => driver.find('[data-testid="assistant-message"] [data-testid="usage"]'), 300_000);
  const streamed = performance.now() - began;
  const webAfter = web ? mainThread(web) : null;
  const machineAfter = machineCpu();
  const cpuAfter = processCpu(pid);
  const stall = await driver.exec('return window.__stall;');
  if (process.env.TRACE) console.log('TRACE ' + JSON.stringify(await driver.exec('return window.__trace;')));
  return { driver, pid, streamed, webBefore, webAfter, machineBefore, machineAfter, cpuBefore, cpuAfter, stall };
}

/**
 * FIGURES_ONLY=stream: the page's thread while the answer streams, STREAM_ROUNDS (6) fresh apps,
 * alternately with and without the frame counter, so its own cost is seen in the same run; or,
 * given TESSERA_DESKTOP_BIN_B, alternately the app and that other build of it (no counter).
 */
async function streamOnly() {
  const provider = await startScriptedProvider((c) => children.push(c));
  const rounds = Number(process.env.STREAM_ROUNDS || 6);
  const other = process.env.TESSERA_DESKTOP_BIN_B;
  const ways = other
    ? [{ name: app, frames: false, application: app }, { name: other, frames: false, application: other }]
    : [{ name: 'without the frame counter', frames: false }, { name: 'with the frame counter', frames: true }];
  const busy = ways.map(() => []);
  for (let i = 0; i < rounds; i++) {
    const way = ways[i % 2];
    const run = await streamLongAnswer(provider, way);
    await run.driver.quit();
    run.driver.child.kill('SIGTERM');
    if (!run.webBefore || !run.webAfter) throw new Error('no web process to watch');
    const share = (100 * (run.webAfter.cpuMs - run.webBefore.cpuMs)) / run.streamed;
    busy[i % 2].push(share);
    const rate = way.frames ? `, ${((run.stall.frames * 1000) / run.streamed).toFixed(0)} frames a second` : '';
    const faults = ((run.webAfter.faults - run.webBefore.faults) * 1000) / run.streamed;
    const jumps = (run.stall.jumps * 1000) / run.streamed;
    console.log(`  round ${i + 1}, ${way.name}: ${share.toFixed(1)} % busy, ${faults.toFixed(0)} page faults a second, longest task ${run.stall.longest.toFixed(0)} ms, the log jumped ${jumps.toFixed(0)} times a second${rate}`);
  }
  const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
  console.log(`the web process's main thread while it streamed, median (target <= 25 %): ${ways.map((w, i) => `${median(busy[i]).toFixed(1)} % ${w.name}`).join(', ')}`);
}

async function main() {
  if (process.env.FIGURES_ONLY === 'long') {
    // Issue 27's figures alone (TESSERA_BIN and TESSERA_DESKTOP_BIN needed).
    printLong(process.env.TESSERA_BIN ? await longConversationFigures(process.env.TESSERA_BIN) : null);
    stopAll();
    return;
  }
  if (process.env.FIGURES_ONLY === 'stream') {
    await streamOnly();
    stopAll();
    return;
  }
  const starts = [];
  for (let i = 0; i < STARTS; i++) starts.push(await coldStart());
  const sorted = [...starts].sort((a, b) => a - b);

  const provider = await startScriptedProvider((c) => children.push(c));
  let idle = null;
  let facesBefore = {};
  const run = await streamLongAnswer(provider, {
    onIdle: async (pid, driver) => {
      idle = memoryMb(processTree(pid));
      facesBefore = await driver.exec(FACES);
    },
  });
  const { driver, pid, streamed, webBefore, webAfter, machineBefore, machineAfter, cpuBefore, cpuAfter, stall } = run;
  const facesAfter = await driver.exec(FACES);
  const newFaces = Object.entries(facesAfter).filter(([face]) => !(face in facesBefore));
  await sleep(1000);
  const after = memoryMb(processTree(pid));
  const processes = processTree(pid).length;
  await driver.quit();

  const cli = process.env.TESSERA_BIN;
  const long = cli ? await longConversationFigures(cli) : null;

  const deb = process.env.TESSERA_DEB;
  const debMb = deb ? statSync(deb).size / 1_048_576 : null;
  const f = (x) => x.toFixed(0);
  console.log(`cold start to an interactive window: median ${f(sorted[Math.floor(sorted.length / 2)])} ms, first ${f(starts[0])} ms, min ${f(sorted[0])} ms, max ${f(sorted.at(-1))} ms (${STARTS} starts; target < 1500 ms)`);
  console.log(`memory of all ${processes} processes (PSS, shared pages shared out): idle ${f(idle.pss)} MB (target < 250 MB), after a 20k-token answer ${f(after.pss)} MB; RSS summed: idle ${f(idle.rss)} MB, after ${f(after.rss)} MB`);
  const parts = (m) => [...m.byName].map(([name, mb]) => `${name} ${f(mb)}`).join(', ');
  console.log(`  PSS by process (MB): idle ${parts(idle)}; after ${parts(after)}`);
  console.log(`longest main-thread task while it streamed: ${f(stall.longest)} ms, ${stall.over50} over 50 ms (target: none); the stream took ${f(streamed)} ms`);
  // Where the time went: when the long tasks came (seconds after the message was sent, and how
  // long), how busy the page's thread was, and how many fresh pages it touched (WebKit paints
  // each update into new shared memory: ~1 fault per 4 KB drawn).
  console.log(`  long tasks at (s: ms): ${stall.at.map(([t, ms]) => `${(t / 1000).toFixed(1)}: ${ms}`).join(', ') || 'none'}`);
  console.log(`  faces first laid out while it streamed (a font lookup each): ${newFaces.map(([face, el]) => `${face} (${el})`).join(', ') || 'none'}`);
  if (webBefore && webAfter) {
    const busy = (webAfter.cpuMs - webBefore.cpuMs) / streamed;
    const faults = ((webAfter.faults - webBefore.faults) * 1000) / streamed;
    const waiting = (webAfter.waitMs - webBefore.waitMs) / streamed;
    const frames = stall.frames === null ? null : (stall.frames * 1000) / streamed;
    const drawn = frames === null ? 'frames not counted (FIGURES_FRAMES=1 counts them, at a cost to this figure)' : `${f(frames)} frames a second (${f(faults / frames)} faults a frame)`;
    console.log(`  the web process's main thread while it streamed: ${f(busy * 100)} % busy (target <= 25 %), ${f(waiting * 100)} % ready but waiting for a CPU, ${f(faults)} page faults a second, ${drawn}`);
    console.log(`  the log jumped ${f((stall.jumps * 1000) / streamed)} times a second`);
  }
  const cpuUse = [...cpuAfter].map(([p, { name, ms }]) => `${name} ${f(((ms - (cpuBefore.get(p)?.ms ?? 0)) * 100) / streamed)} %`);
  console.log(`  CPU of the app's processes while it streamed (100 % = one core): ${cpuUse.join(', ')}`);
  if (machineBefore && machineAfter) {
    const total = machineAfter.total - machineBefore.total;
    const share = (x) => f(((x(machineAfter) - x(machineBefore)) * 100) / total);
    console.log(`  the machine while it streamed: ${share((m) => m.total - m.idle)} % of its CPUs in use, ${share((m) => m.steal)} % taken by the hypervisor (steal)`);
  }
  console.log(`.deb size: ${debMb === null ? 'not given (TESSERA_DEB)' : `${debMb.toFixed(1)} MB`}`);
  printLong(long);
  stopAll();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
