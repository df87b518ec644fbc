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
// every BENCH_DELAY_MS (default 2).

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
    const sentAt = await page.evaluate(() => performance.now());
    await sendMessage(page, 'Write a very long answer');
    const log = page.getByRole('log', { name: 'Messages' });
    const answer = log.getByTestId('assistant-message').last();
    await answer.locator('.markdown').first().waitFor({ timeout: 30_000 });
    const firstAt = await page.evaluate(() => performance.now());
    await answer.getByTestId('usage').waitFor({ timeout: 600_000 });
    const doneAt = await page.evaluate(() => performance.now());
    // Let the last render and the scroll settle, then read the tasks.
    await page.waitForTimeout(1_000);
    const tasks = (await page.evaluate(() => /** @type {any} */ (window).__longTasks)).filter(
      (t) => t.start >= sentAt && t.start <= doneAt + 1_000,
    );
    // innerText, not textContent: table cells and list items stay apart.
    const text = (await answer.locator('.markdown').allInnerTexts()).join('\n');
    const words = wordsIn(text);
    const complete = words.length === PIECES && words.every((w, i) => w === i);
    const answers = await log.getByTestId('assistant-message').count();

    const longest = tasks.reduce((m, t) => Math.max(m, t.duration), 0);
    const blocking = tasks.reduce((s, t) => s + Math.max(0, t.duration - 50), 0);
    const fmt = (ms) => `${ms.toFixed(0)} ms`;
    console.log(`answer: ${pieces.length} pieces, ${(bytes / 1024).toFixed(1)} KiB of Markdown, ${PER_STEP} piece(s) every ${DELAY_MS} ms`);
    console.log(`stream: first text after ${fmt(firstAt - sentAt)}, done after ${fmt(doneAt - sentAt)}`);
    console.log(`long tasks: ${tasks.length}`);
    console.log(`longest task: ${fmt(longest)}`);
    console.log(`total blocking time: ${fmt(blocking)}`);
    console.log(
      `final DOM: ${text.length} characters, ${words.length} words of ${PIECES}, ${complete ? 'every word once, in order' : 'WORDS MISSING OR REPEATED'}, ${answers} assistant message(s)`,
    );
    if (errors.length > 0) console.log(`page errors: ${errors.join(' | ')}`);
    await context.close();
    if (!complete || answers !== 1) process.exitCode = 1;
  } finally {
    await browser.close().catch(() => {});
    await stack.stop();
  }
}

await main();
