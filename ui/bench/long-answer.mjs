// Benchmark (not a test: it prints figures and asserts no timing): a 20k-token answer streamed
// into the built UI by a real `tessera serve` whose model is the scripted provider, in Debian's
// headless Chromium. Every main-thread long task (PerformanceObserver `longtask`, buffered)
// between sending the message and the answer's end is recorded; the script prints how many,
// the longest, the total blocking time (the sum of each task's time over 50 ms), how long the
// stream lasted, and whether the whole answer is on the page once.
//
//   make bench-ui
//   (or: npm --prefix ui run build && TESSERA_BIN=…/tessera node ui/bench/long-answer.mjs)
//
// It lives outside e2e/ so `npm run e2e` (node --test e2e/) never runs it. Options through the
// environment: BENCH_PIECES (default 20000), BENCH_PER_STEP pieces written together (default 2)
// every BENCH_DELAY_MS (default 2); BENCH_VERBOSE=1 lists every long task,
// BENCH_PROFILE=1 prints where the page's time went, BENCH_TRACE=1 what each long task held.

import os from 'node:os';
import { launchBrowser, openPage, sendMessage, startStack } from '../e2e/harness.mjs';
import { pushReplies } from '../e2e/scripted.mjs';
import { longAnswer } from './answer.mjs';

const PIECES = Number(process.env.BENCH_PIECES ?? 20_000);
const DELAY_MS = Number(process.env.BENCH_DELAY_MS ?? 2);
const PER_STEP = Number(process.env.BENCH_PER_STEP ?? 2);

/**
 * The answer as the scripted provider streams it: `perStep` chunks written together, then
 * `delayMs`. The chunks carry only the fields the decoder reads, since the whole script must
 * fit the provider's 2 MB request limit (e2e/scripted.mjs textReply's full chunks would not).
 */
function compactTextReply(pieces, delayMs, perStep) {
  const data = (chunk) => `data: ${JSON.stringify(chunk)}\n\n`;
  const steps = [{ raw: data({ choices: [{ index: 0, delta: { role: 'assistant', content: '' } }] }) }];
  for (let i = 0; i < pieces.length; i += perStep) {
    if (delayMs > 0) steps.push({ delay_ms: delayMs });
    steps.push({ raw: pieces.slice(i, i + perStep).map((p) => data({ choices: [{ delta: { content: p } }] })).join('') });
  }
  steps.push({ raw: data({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }) });
  steps.push({ raw: data({ choices: [], usage: { prompt_tokens: 12, completion_tokens: pieces.length, total_tokens: 12 + pieces.length } }) });
  steps.push({ raw: 'data: [DONE]\n\n' });
  return { status: 200, headers: [], body: { sse: steps }, delay_ms: 0 };
}

/** Words `w<n>` on the page, as numbers, in order. */
function wordsIn(text) {
  return Array.from(text.matchAll(/\bw([0-9a-z]+)\b/g), (m) => parseInt(m[1] ?? '', 36));
}

/** The functions the page spent most of its time in (self time), from a CPU profile. */
function printProfile(profile) {
  const self = new Map();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const deltas = profile.timeDeltas ?? [];
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id)?.callFrame;
    const key = `${frame?.functionName || '(anonymous)'} ${frame?.url?.split('/').pop() ?? ''}:${frame?.lineNumber ?? 0}`;
    self.set(key, (self.get(key) ?? 0) + (deltas[i] ?? 0) / 1000);
  });
  const top = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 25);
  console.log('profile (self time):');
  for (const [key, ms] of top) console.log(`  ${ms.toFixed(0).padStart(7)} ms  ${key}`);
}

/** What the main thread's tasks over 50 ms were made of (a Chrome trace's events inside them). */
function printLongTaskMakeup(trace) {
  const events = trace.traceEvents ?? trace;
  const main = events.find((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  const mine = events.filter((e) => main && e.pid === main.pid && e.tid === main.tid && e.ph === 'X');
  const tasks = mine.filter((e) => (e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask') && e.dur > 50_000);
  console.log(`trace: ${events.length} events, ${mine.length} on the main thread, ${tasks.length} tasks over 50 ms`);
  for (const task of tasks) {
    const inside = new Map();
    for (const e of mine) {
      if (e === task || e.ts < task.ts || e.ts + e.dur > task.ts + task.dur || e.dur < 2_000) continue;
      inside.set(e.name, (inside.get(e.name) ?? 0) + e.dur / 1000);
    }
    const parts = [...inside.entries()].sort((a, b) => b[1] - a[1]).slice(0, 8);
    console.log(`  task ${(task.dur / 1000).toFixed(0)} ms: ${parts.map(([n, ms]) => `${n} ${ms.toFixed(0)}`).join(', ')}`);
  }
}

async function main() {
  const pieces = longAnswer(PIECES);
  const bytes = Buffer.byteLength(pieces.join(''));
  const stack = await startStack();
  const browser = await launchBrowser();
  try {
    await pushReplies(stack.providerUrl, [compactTextReply(pieces, DELAY_MS, PER_STEP)]);
    const { context, page, errors } = await openPage(browser, stack.url, 'en-US');
    await page.evaluate(() => {
      const w = /** @type {any} */ (window);
      w.__longTasks = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) w.__longTasks.push({ start: e.startTime, duration: e.duration });
      }).observe({ type: 'longtask', buffered: true });
    });
    const cdp = process.env.BENCH_PROFILE ? await context.newCDPSession(page) : null;
    if (cdp) {
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 500 });
      await cdp.send('Profiler.start');
    }
    if (process.env.BENCH_TRACE) await browser.startTracing(page, { categories: ['toplevel', 'devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8'] });
    const sentAt = await page.evaluate(() => performance.now());
    await sendMessage(page, 'Write a very long answer');
    // Waited for with a plain selector, polled four times a second: Playwright's own locators
    // (roles, visibility) would walk the whole growing page every frame, on the thread measured.
    const seen = (selector, timeout) => page.waitForFunction((s) => document.querySelector(s) !== null, selector, { polling: 250, timeout });
    await seen('[data-testid="assistant-message"] .markdown', 30_000);
    const firstAt = await page.evaluate(() => performance.now());
    await seen('[data-testid="assistant-message"] [data-testid="usage"]', 600_000);
    const doneAt = await page.evaluate(() => performance.now());
    // Let the last render and the scroll settle, then read the tasks.
    await page.waitForTimeout(1_000);
    if (cdp) printProfile((await cdp.send('Profiler.stop')).profile);
    if (process.env.BENCH_TRACE) printLongTaskMakeup(JSON.parse((await browser.stopTracing()).toString()));
    const tasks = (await page.evaluate(() => /** @type {any} */ (window).__longTasks)).filter(
      (t) => t.start >= sentAt && t.start <= doneAt + 1_000,
    );
    // innerText, not textContent: table cells and list items stay apart. innerText leaves out
    // the blocks whose drawing is skipped off screen (content-visibility): draw them all first.
    await page.evaluate(() => {
      for (const block of document.querySelectorAll('.markdown > *')) /** @type {HTMLElement} */ (block).style.contentVisibility = 'visible';
    });
    const answer = page.getByTestId('assistant-message').last();
    const text = (await answer.locator('.markdown').allInnerTexts()).join('\n');
    const words = wordsIn(text);
    const complete = words.length === PIECES && words.every((w, i) => w === i);
    const answers = await page.getByTestId('assistant-message').count();

    const longest = tasks.reduce((m, t) => Math.max(m, t.duration), 0);
    const blocking = tasks.reduce((s, t) => s + Math.max(0, t.duration - 50), 0);
    const fmt = (ms) => `${ms.toFixed(0)} ms`;
    console.log(`answer: ${pieces.length} pieces, ${(bytes / 1024).toFixed(1)} KiB of Markdown, ${PER_STEP} piece(s) every ${DELAY_MS} ms`);
    console.log(`stream: first text after ${fmt(firstAt - sentAt)}, done after ${fmt(doneAt - sentAt)}`);
    // Other work on this machine stretches the page's tasks: say how busy it was.
    console.log(`load average at the end: ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} (${os.cpus().length} cores)`);
    console.log(`long tasks: ${tasks.length}`);
    console.log(`longest task: ${fmt(longest)}`);
    console.log(`total blocking time: ${fmt(blocking)}`);
    console.log(
      `final DOM: ${text.length} characters, ${words.length} words of ${PIECES}, ${complete ? 'every word once, in order' : 'WORDS MISSING OR REPEATED'}, ${answers} assistant message(s)`,
    );
    if (process.env.BENCH_VERBOSE) {
      for (const t of tasks) console.log(`  task at +${fmt(t.start - sentAt)}: ${fmt(t.duration)}`);
    }
    if (errors.length > 0) console.log(`page errors: ${errors.join(' | ')}`);
    await context.close();
    if (!complete || answers !== 1) process.exitCode = 1;
  } finally {
    await browser.close().catch(() => {});
    await stack.stop();
  }
}

await main();
