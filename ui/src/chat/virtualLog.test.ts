import { describe, expect, it } from 'vitest';
import { FAR_SCREENS, KEEP_SCREENS, NEAR_SCREENS, anchoredViewTop, calibrate, covers, estimateHeight, mountedRows, nextSpan, rowTops, rowsIn, segments, spanAround, spanAtEnd } from './virtualLog';

const GAP = 16;
/** Ten rows of 100 px: row i starts at 116 * i. */
const tens = Array.from({ length: 10 }, () => 100);

describe('the rows of a long log in the page', () => {
  it('places the rows one under the other with the gap between them', () => {
    expect(rowTops([100, 50, 200], GAP)).toEqual([0, 116, 182, 398]);
    expect(rowTops([], GAP)).toEqual([0]);
  });

  it('puts in the page the rows a stretch of the log reaches into, and no others', () => {
    const tops = rowTops(tens, GAP);
    // 250–400: row 2 (232–332) and row 3 (348–448).
    expect(rowsIn(tops, GAP, { from: 250, to: 400 })).toEqual([2, 4]);
    // A stretch inside the gap under row 1 (216–232) touches no row's box but the next one's top.
    expect(rowsIn(tops, GAP, { from: 220, to: 230 })).toEqual([2, 2]);
    // From above the first row to below the last: all of them.
    expect(rowsIn(tops, GAP, { from: -500, to: 5_000 })).toEqual([0, 10]);
    // Below the last row: none.
    expect(rowsIn(tops, GAP, { from: 2_000, to: 3_000 })).toEqual([10, 10]);
  });

  it('takes a screen or two around the view, and the end of the log before anything is scrolled', () => {
    expect(spanAround(1_000, 500, 2)).toEqual({ from: 0, to: 2_500 });
    const tops = rowTops(tens, GAP);
    // The rows end at 1,144: the last view and a screen and a half more above it.
    expect(spanAtEnd(tops, GAP, 300, 1.5)).toEqual({ from: 1_144 - 750, to: 1_444 });
    expect(rowsIn(tops, GAP, spanAtEnd(tops, GAP, 300, 1.5))).toEqual([3, 10]);
  });

  it('stands in for the rows out of the page with spacers exactly as tall, gaps included', () => {
    const heights = [100, 40, 60, 80, 120, 30];
    const mounted = new Set([2, 3]);
    const out = segments(heights, GAP, (i) => mounted.has(i));
    expect(out).toEqual([
      { kind: 'spacer', first: 0, end: 2, height: 100 + 40 + GAP },
      { kind: 'row', index: 2 },
      { kind: 'row', index: 3 },
      { kind: 'spacer', first: 4, end: 6, height: 120 + 30 + GAP },
    ]);
    // Laid out with the gap between every segment, row 2 starts where it would with all rows
    // in the page, and so does what follows the rows.
    const tops = rowTops(heights, GAP);
    const laidOut = rowTops(
      out.map((s) => (s.kind === 'row' ? (heights[s.index] ?? 0) : s.height)),
      GAP,
    );
    expect(laidOut[1]).toBe(tops[2]);
    expect(laidOut.at(-1)).toBe(tops.at(-1));
    // Every row in the page: no spacer at all.
    expect(segments(heights, GAP, () => true).every((s) => s.kind === 'row')).toBe(true);
  });

  it('keeps the pinned rows (the turn answered, the row with the focus) in the page wherever the view is', () => {
    const tops = rowTops(tens, GAP);
    const { range, mounted } = mountedRows(tops, GAP, { from: 0, to: 150 }, [8, 42, -1], true);
    expect(range).toEqual([0, 2]);
    expect([...Array(10).keys()].filter(mounted)).toEqual([0, 1, 8]);
    // A short log: every row, whatever the span.
    const all = mountedRows(tops, GAP, { from: 0, to: 150 }, [], false);
    expect([...Array(10).keys()].filter(all.mounted)).toHaveLength(10);
  });

  it('puts rows in the page again only once the view comes near the edge of those in it', () => {
    const tops = rowTops(tens, GAP);
    // Rows 3–6 (348–796) are in the page.
    expect(covers(tops, GAP, [3, 7], { from: 400, to: 700 })).toBe(true);
    expect(covers(tops, GAP, [3, 7], { from: 300, to: 700 })).toBe(false);
    expect(covers(tops, GAP, [3, 7], { from: 400, to: 900 })).toBe(false);
    // Nothing above the first row or below the last to put in.
    expect(covers(tops, GAP, [0, 3], { from: -900, to: 300 })).toBe(true);
    expect(covers(tops, GAP, [8, 10], { from: 950, to: 4_000 })).toBe(true);
    // No row in the page at all: only a log with no rows is covered.
    expect(covers(tops, GAP, [4, 4], { from: 450, to: 460 })).toBe(false);
    expect(covers(rowTops([], GAP), GAP, [0, 0], { from: 0, to: 100 })).toBe(true);
  });
});

describe('putting rows in the page as the view moves', () => {
  /** 100 rows of 100 px (row i at 116 i), a view 500 px high. */
  const tops = rowTops(Array.from({ length: 100 }, () => 100), GAP);
  const VIEW = 500;
  /** Follows `nextSpan` from `range` for the view at `top` until it has nothing to change. */
  function settle(range: [number, number], top: number) {
    const steps: { range: [number, number]; now: boolean }[] = [];
    for (let next = nextSpan(tops, GAP, range, top, VIEW); next; next = nextSpan(tops, GAP, range, top, VIEW)) {
      range = rowsIn(tops, GAP, next.span);
      steps.push({ range, now: next.now });
      if (steps.length > 50) throw new Error('no end to it');
    }
    return { range, steps };
  }

  it('puts the rows in view in at once when the view is out of those in the page', () => {
    // Rows 40–49 in the page; the view jumps to 1,160 (rows 10–14).
    const next = nextSpan(tops, GAP, [40, 50], 1_160, VIEW);
    expect(next?.now).toBe(true);
    const range = rowsIn(tops, GAP, next?.span ?? { from: 0, to: 0 });
    // The view and NEAR_SCREENS around it, and nothing of the far rows.
    expect(covers(tops, GAP, range, spanAround(1_160, VIEW, NEAR_SCREENS))).toBe(true);
    expect(range[1]).toBeLessThan(40);
  });

  it('then a step a frame, the side nearest the view first, up to FAR_SCREENS either side', () => {
    const { range, steps } = settle([10, 15], 1_160);
    // The rows in view (row 9 reaches into NEAR_SCREENS above it) at once, then the others.
    expect(steps[0]?.now).toBe(true);
    expect(steps.length).toBeGreaterThan(3);
    expect(steps.slice(1).every((s) => !s.now)).toBe(true);
    // No step puts in more than about half a screen of rows (a row more at its edge).
    let previous = steps[0]?.range ?? [10, 15];
    for (const { range: r } of steps.slice(1)) {
      expect(previous[0] - r[0] + (r[1] - previous[1])).toBeLessThanOrEqual(Math.ceil((0.5 * VIEW) / 116) + 1);
      previous = r;
    }
    // Settled: FAR_SCREENS of rows above and below the view, no more than KEEP_SCREENS.
    expect(tops[range[0]] ?? 0).toBeLessThanOrEqual(1_160 - FAR_SCREENS * VIEW);
    expect(tops[range[0]] ?? 0).toBeGreaterThanOrEqual(1_160 - KEEP_SCREENS * VIEW - 116);
    expect((tops[range[1]] ?? 0) - GAP).toBeGreaterThanOrEqual(1_160 + VIEW + FAR_SCREENS * VIEW);
  });

  it('takes out the rows left far behind as the view goes on', () => {
    const { range } = settle([10, 15], 1_160);
    // A screen down: still within what is in the page (nothing at once)…
    const on = settle(range, 1_160 + VIEW);
    expect(on.steps.length).toBeGreaterThan(0);
    expect(on.steps.every((s) => !s.now)).toBe(true);
    // …and the rows more than KEEP_SCREENS above the view taken out.
    expect(range[0]).toBeLessThan(on.range[0]);
    expect(tops[on.range[0]] ?? 0).toBeGreaterThanOrEqual(1_160 + VIEW - KEEP_SCREENS * VIEW - 116);
  });

  it('has nothing to change once the rows around the view are in the page', () => {
    const { range } = settle([0, 1], 0);
    expect(range[0]).toBe(0);
    expect(nextSpan(tops, GAP, range, 0, VIEW)).toBeNull();
    // A log shorter than the view: every row, then nothing.
    const short = rowTops([100, 100], GAP);
    expect(nextSpan(short, GAP, [0, 2], 0, VIEW)).toBeNull();
  });
});

describe('keeping what the person reads in place', () => {
  const keys = ['a', 'b', 'c', 'd', 'e'];
  const before = { keys, heights: [100, 100, 100, 100, 100] };

  it('moves the view with a row above it that changes height', () => {
    // The view's top is 30 px into row c (232–332).
    const after = { keys, heights: [100, 180, 100, 100, 100] };
    expect(anchoredViewTop(before, after, GAP, 262)).toBe(262 + 80);
    // Smaller than estimated: up by as much.
    expect(anchoredViewTop(before, { keys, heights: [40, 100, 100, 100, 100] }, GAP, 262)).toBe(262 - 60);
  });

  it('leaves the view where it is when the rows changing are the one read or below it', () => {
    expect(anchoredViewTop(before, { keys, heights: [100, 100, 300, 50, 900] }, GAP, 262)).toBe(262);
  });

  it('follows the row read when rows come or go above it', () => {
    const after = { keys: ['x', 'a', 'c', 'd', 'e'], heights: [50, 100, 100, 100, 100] };
    // b (100 px) went, x (50 px) came: c starts 50 px higher.
    expect(anchoredViewTop(before, after, GAP, 262)).toBe(262 - 50);
  });

  it('takes the next row still there when the one read is gone', () => {
    const after = { keys: ['a', 'b', 'd', 'e'], heights: [100, 100, 100, 100] };
    // c went; d (was at 348) is now at 232: the view goes up by as much.
    expect(anchoredViewTop(before, after, GAP, 262)).toBe(262 - 116);
  });

  it('keeps a view below every row (a form, the end) where it is relative to what follows them', () => {
    const after = { keys, heights: [100, 100, 100, 100, 160] };
    expect(anchoredViewTop(before, after, GAP, 600)).toBe(660);
  });
});

describe('estimating a row before it is drawn', () => {
  it('grows with the text: wrapped lines, code lines, table rows', () => {
    const short = estimateHeight('Hello', 760);
    const long = estimateHeight('word '.repeat(400), 760);
    expect(long).toBeGreaterThan(short * 5);
    const code = estimateHeight('Look:\n\n```rust\n' + 'let x = 1;\n'.repeat(20) + '```', 760);
    expect(code).toBeGreaterThan(estimateHeight('Look:', 760) + 20 * 20);
    const table = estimateHeight('| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |', 760);
    expect(table).toBeGreaterThan(estimateHeight('| a | b |', 760));
    // The same text in a narrower column takes more lines.
    expect(estimateHeight('word '.repeat(400), 380)).toBeGreaterThan(long);
  });

  it('corrects the estimates by what was measured, within bounds', () => {
    expect(calibrate(1_500, 1_000)).toBe(1.5);
    expect(calibrate(10_000, 1_000)).toBe(2);
    expect(calibrate(100, 1_000)).toBe(0.5);
    expect(calibrate(0, 0)).toBe(1);
  });
});
