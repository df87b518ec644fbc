// End-to-end: one long streamed answer (issue 27) through the built UI, with a real `tessera
// serve`: the log follows it to its end as it streams, only the groups of its blocks near the view
// are in the page (the log's rows cannot split one answer); scrolled up to, its early blocks are
// drawn with their text while what is read stays where it is; Tab goes through its code blocks'
// copy buttons in order; a selection stays whole (and is copied whole) wherever the view goes.

import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { suiteStack } from './harness.mjs';
import { pushReplies, textReply } from './scripted.mjs';

const PARTS = 60;

/** ~300 blocks (~10 groups of 32), streamed a line at a time. */
function longAnswer() {
  const pieces = [];
  for (let n = 1; n <= PARTS; n++) {
    pieces.push(`## Part ${n}\n\n`);
    pieces.push(`Part ${n} begins here: ${'a few words about it, '.repeat(8)}and ends.\n\n`);
    pieces.push(`- first point of ${n}\n`, `- second point of ${n}\n\n`);
    pieces.push('```rust\n');
    for (let i = 0; i < 8; i++) pieces.push(`let part${n}_${i} = ${i};\n`);
    pieces.push('```\n\n');
    pieces.push(`| part | value |\n|---|---|\n| ${n} | ${n * 2} |\n\n`);
  }
  return pieces;
}

describe('a long answer', () => {
  const suite = suiteStack();
  let stack;
  before(() => ({ stack } = suite));

  /** How many of the answer's groups are in the page, and how many spacers stand for the others. */
  const groups = (page) =>
    page.evaluate(() => {
      const answer = [...document.querySelectorAll('[data-testid="assistant-message"] .markdown')].at(-1);
      return { groups: answer.querySelectorAll('.markdown-group').length, spacers: answer.querySelectorAll('.markdown-spacer').length };
    });

  /**
   * Scrolls the log up most of a screen at a time to its top, checking at each step that the
   * block at the view's top stays where it is while groups come into the page (and are measured,
   * and their blocks parsed) around it, within `tolerance` pixels. Returns the pixels the page
   * scrolled by itself to keep it.
   */
  async function scrollUpKeepingTheView(page, tolerance = 2) {
    const kept = [];
    for (let step = 0; step < 400; step++) {
      const moved = await page.evaluate(async () => {
        const log = document.querySelector('[data-testid="message-list"]');
        if (log.scrollTop === 0) return { top: true };
        // What the page holds, for a failure's message.
        const shape = () => [...log.querySelectorAll('.markdown > *')].map((e) => `${e.className === 'markdown-group' ? 'G' : 'S'}${e.dataset.group}:${Math.round(e.getBoundingClientRect().top)}+${Math.round(e.getBoundingClientRect().height)}`).join(' ');
        const adjusted = [];
        const onAdjust = (e) => adjusted.push(e.detail);
        log.addEventListener('tessera-log-adjust', onAdjust);
        log.scrollTop -= Math.round(log.clientHeight * 0.9);
        const view = log.getBoundingClientRect().top;
        const shapeBefore = shape();
        // The answer's first block reaching below the view's top (at it, or the next one below
        // a gap or a spacer), else the row there, else the first row below it.
        const blocks = [...log.querySelectorAll('.markdown-group > *')];
        const rows = [...log.querySelectorAll('[data-row-key]')];
        const block =
          blocks.find((b) => b.getBoundingClientRect().bottom > view) ??
          rows.find((b) => b.getBoundingClientRect().bottom > view && b.getBoundingClientRect().top <= view) ??
          rows.find((b) => b.getBoundingClientRect().top > view);
        if (!block) return { missing: true, at: log.scrollTop, shape: shapeBefore };
        // A block still shown as its text is replaced once parsed: then the one in its place.
        const group = block.parentElement?.classList.contains('markdown-group') ? block.parentElement : null;
        const index = group ? [...group.children].indexOf(block) : -1;
        const before = block.getBoundingClientRect().top;
        await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 50))));
        // On a busy machine a group parsed late is measured, and corrected for, a few frames
        // later: where the block ends up once the page stops adjusting is what is checked (at
        // most a second; a correction that never comes fails).
        for (let quiet = 0, waited = 0; quiet < 3 && waited < 60; waited++) {
          const seen = adjusted.length;
          await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 16)));
          quiet = adjusted.length === seen ? quiet + 1 : 0;
        }
        log.removeEventListener('tessera-log-adjust', onAdjust);
        const now = block.isConnected ? block : group?.isConnected ? group.children[index] : null;
        return { moved: now ? now.getBoundingClientRect().top - before : null, text: block.textContent.slice(0, 30), adjusted, shapeBefore, shapeAfter: shape() };
      });
      if (moved.top) return kept;
      assert.ok(!moved.missing, `step ${step}: something at the view's top (${JSON.stringify(moved)})`);
      assert.ok(moved.moved !== null && Math.abs(moved.moved) < tolerance, `step ${step}: what was read moved ${JSON.stringify(moved)}`);
      kept.push(...moved.adjusted);
    }
    assert.fail('the top was not reached');
  }

  /** Frame by frame from now on: how far below the log's view its newest text ends, and where the log is scrolled. */
  const watchFrames = (page) =>
    page.evaluate(() => {
      window.__frames = [];
      const frame = () => {
        const log = document.querySelector('[data-testid="message-list"]');
        const end = log?.querySelector('[data-testid="log-end"]');
        if (log && end) window.__frames.push({ below: end.getBoundingClientRect().top - log.getBoundingClientRect().bottom, top: log.scrollTop });
        window.__framesId = requestAnimationFrame(frame);
      };
      frame();
    });
  const framesSeen = (page) =>
    page.evaluate(() => {
      cancelAnimationFrame(window.__framesId);
      return window.__frames;
    });

  /** Whether `locator`'s element is within the log's view. */
  const inView = (locator) =>
    locator.evaluate((el) => {
      const log = el.closest('[role="log"]').getBoundingClientRect();
      const r = el.getBoundingClientRect();
      return r.bottom > log.top && r.top < log.bottom;
    });

  test('is followed as it streams, drawn in part: its early blocks with their text when scrolled to, the view kept, Tab in order, a selection whole', async () => {
    // ~900 pieces ~4 ms apart: faster than anyone reads (drawn at the fast pace, drawPacer.ts).
    await pushReplies(stack.providerUrl, [textReply(longAnswer(), 4)]);
    const { page, errors } = await suite.open('en-US');
    await page.getByRole('textbox', { name: 'Message' }).fill('Write a long answer');
    await watchFrames(page);
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    const answer = page.getByTestId('assistant-message').last();
    await answer.getByTestId('usage').waitFor({ timeout: 60_000 });
    await page.waitForTimeout(500);
    const lastLine = answer.getByText(`let part${PARTS}_7 = 7;`);
    assert.match((await answer.textContent()) ?? '', new RegExp(`let part${PARTS}_7 = 7;`));

    // Followed: the log went down with the answer, its newest text in view in most frames (~11 %
    // not, in Chromium here: a drawing shows before the log jumps after it, in the next frame),
    // its last line in view at the end. (How many frames in a row the newest text is below the
    // view, 1 or 2 on an idle machine, went to 7 while Rust built beside it: not asserted.)
    const frames = await framesSeen(page);
    const deepest = Math.max(...frames.map((f) => f.top));
    const out = frames.filter((f) => f.below > 50);
    assert.ok(deepest > 5_000, `the log went down with the answer (${deepest} px)`);
    assert.ok(out.length <= frames.length * 0.3, `the newest text in view in most frames: ${out.length} of ${frames.length} not`);
    assert.ok(await inView(lastLine), 'its last line in view');

    // At its end: a few groups in the page, the rest spacers.
    const atEnd = await groups(page);
    assert.ok(atEnd.groups >= 1 && atEnd.groups <= 4 && atEnd.spacers >= 6, `at the end: ${JSON.stringify(atEnd)}`);
    assert.equal(await answer.getByText('Part 1 begins here', { exact: false }).count(), 0, 'its beginning is out of the page');

    // Up most of a screen at a time to its top: the block at the view's top stays where it is
    // while groups come into the page above it.
    await scrollUpKeepingTheView(page);
    const first = answer.getByText('Part 1 begins here', { exact: false });
    await first.waitFor({ timeout: 5_000 });
    assert.ok(await inView(first), 'the first paragraph is in view');
    const atTop = await groups(page);
    assert.ok(atTop.groups >= 1 && atTop.groups <= 4, `at the top: ${JSON.stringify(atTop)}`);
    assert.equal(await lastLine.count(), 0, 'its end is out of the page');

    // Text selected from Part 1 to Part 9 (two groups: Part 1's paragraph selected, the log
    // scrolled down to Part 9, the selection extended to it as Shift+click does), then the view
    // taken to the answer's end: the selection stays whole, and Copy takes all of it.
    const paragraph = (n) => `[...document.querySelectorAll('[data-testid="assistant-message"] p')].find((p) => p.textContent.startsWith('Part ${n} begins here'))`;
    await page.evaluate(`(() => {
      const from = ${paragraph(1)};
      const range = document.createRange();
      range.selectNodeContents(from);
      document.getSelection().removeAllRanges();
      document.getSelection().addRange(range);
    })()`);
    const log = page.getByRole('log', { name: 'Messages' });
    const ninth = answer.getByText('Part 9 begins here', { exact: false });
    for (let i = 0; i < 40 && !((await ninth.count()) > 0 && (await inView(ninth))); i++) {
      await log.evaluate((el) => {
        el.scrollTop += 300;
      });
      await page.waitForTimeout(100);
    }
    assert.ok(await inView(ninth), 'scrolled down to Part 9');
    await page.evaluate(`(() => {
      const to = ${paragraph(9)};
      document.getSelection().extend(to.firstChild, to.firstChild.length);
    })()`);
    const selected = await page.evaluate(() => document.getSelection().toString());
    assert.match(selected, /^Part 1 begins here[^]*let part5_7 = 7;[^]*Part 9 begins here/);
    await log.evaluate((el) => {
      el.scrollTop = el.scrollHeight;
    });
    await lastLine.waitFor({ timeout: 5_000 });
    await page.waitForTimeout(300);
    assert.ok(await inView(lastLine), 'at the end');
    assert.equal(await page.evaluate(() => document.getSelection().toString()), selected, 'the selection is whole');
    const copied = await page.evaluate(() => {
      let text = null;
      const onCopy = () => {
        text = document.getSelection().toString();
      };
      document.addEventListener('copy', onCopy);
      document.execCommand('copy');
      document.removeEventListener('copy', onCopy);
      return text;
    });
    assert.equal(copied, selected, 'Copy takes the whole selection');
    // Back to the top, nothing selected.
    await page.evaluate(() => document.getSelection().removeAllRanges());
    await log.evaluate((el) => {
      el.scrollTop = 0;
    });
    await first.waitFor({ timeout: 5_000 });

    // Tab from the first code block's copy button: through the next ones, in order, the groups
    // after them put in the page as the focus comes near (never out of the answer).
    await answer.getByRole('button', { name: 'Copy code' }).first().focus();
    const seen = [];
    for (let i = 0; i < 40; i++) {
      await page.keyboard.press('Tab');
      const at = await page.evaluate(() => {
        const el = document.activeElement;
        const block = el?.closest('.code-block');
        return /let part(\d+)_0/.exec(block?.textContent ?? '')?.[1] ?? null;
      });
      assert.ok(at !== null, `Tab ${i + 1} went to a code block's copy button of the answer`);
      seen.push(Number(at));
    }
    for (let i = 1; i < seen.length; i++) assert.equal(seen[i], seen[i - 1] + 1, `in order: ${seen.join(' ')}`);

    assert.deepEqual(errors, []);
  });

  test('reopened, with heights only estimated and nothing parsed yet, keeps what is read in place while scrolled up', async () => {
    const { page, errors } = await suite.open('en-US');
    await page.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: 'Write a long answer', exact: true }).click();
    const answer = page.getByTestId('assistant-message').last();
    await answer.getByText(`let part${PARTS}_7 = 7;`).waitFor({ timeout: 15_000 });
    await page.waitForTimeout(500);
    const atEnd = await groups(page);
    assert.ok(atEnd.groups >= 1 && atEnd.groups <= 4 && atEnd.spacers >= 6, `at the end: ${JSON.stringify(atEnd)}`);
    assert.ok(await inView(answer.getByText(`let part${PARTS}_7 = 7;`)), 'opened at its end');
    // Parsed as they come into the page, the blocks at the view's top may be drawn anew there
    // (their own margins change a few pixels); what is above them is kept.
    const kept = await scrollUpKeepingTheView(page, 20);
    // The spacers were estimates: the page did scroll by itself to keep the view.
    assert.ok(kept.length > 0, 'the view was kept by scrolling');
    await answer.getByText('Part 1 begins here', { exact: false }).waitFor({ timeout: 5_000 });
    assert.equal(await answer.locator('.markdown-pending').count(), 0);
    assert.deepEqual(errors, []);
  });
});
