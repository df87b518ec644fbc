/**
 * The arithmetic of a long conversation's log drawn in part (issue 27): which of its rows are
 * in the page for a scroll position, the spacers standing for the others, and where the view
 * goes when rows above it change height. Pure functions; `useVirtualRows.ts` applies them.
 *
 * Rows sit one under the other in a flex column with a `gap` between them, from 0 at the top of
 * the conversation (content coordinates: pixels below the conversation's top). A row's height
 * is what was measured when it was last in the page, or an estimate until then.
 */

/** Rows in a log from which it is drawn in part; up to this many, every row is in the page. */
export const VIRTUALISE_ABOVE = 30;
/** Screens of rows above and below the view that must be in the page now (else they are put in at once). */
export const NEAR_SCREENS = 0.25;
/** Screens of rows above and below the view put in the page over the next frames… */
export const FAR_SCREENS = 1.5;
/**
 * …this much of a screen of them a frame (the fewer rows a frame puts in, the shorter the task
 * that draws them; half a screen a frame keeps ahead of a person scrolling a screen every 50 ms).
 */
export const STEP_SCREENS = 0.5;
/** Screens of rows above and below the view beyond which rows are taken out of the page. */
export const KEEP_SCREENS = 2;
/** Rows either side of the row holding the focus kept in the page, so Tab goes on into them. */
export const FOCUS_NEIGHBOURS = 3;

/** A stretch of the conversation, in content pixels. */
export interface Span {
  from: number;
  to: number;
}

/** Where each row starts: `tops[i]`, and `tops[n]` where what follows the rows starts. */
export function rowTops(heights: readonly number[], gap: number): number[] {
  const tops = new Array<number>(heights.length + 1);
  let y = 0;
  for (let i = 0; i < heights.length; i++) {
    tops[i] = y;
    y += (heights[i] ?? 0) + gap;
  }
  tops[heights.length] = y;
  return tops;
}

/** The first row whose bottom is below `y` (`n` when none is). */
function firstEndingBelow(tops: readonly number[], gap: number, y: number): number {
  let lo = 0;
  let hi = tops.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((tops[mid + 1] ?? 0) - gap > y) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** The first row starting at or below `y` (`n` when none does). */
function firstStartingBelow(tops: readonly number[], y: number): number {
  let lo = 0;
  let hi = tops.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((tops[mid] ?? 0) >= y) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** The rows `[first, end)` that `span` reaches into. */
export function rowsIn(tops: readonly number[], gap: number, span: Span): [number, number] {
  const first = firstEndingBelow(tops, gap, span.from);
  const end = Math.max(first, firstStartingBelow(tops, span.to));
  return [first, end];
}

/** The view (its top in content pixels, its height) and `screens` of it above and below. */
export function spanAround(viewTop: number, viewHeight: number, screens: number): Span {
  return { from: viewTop - screens * viewHeight, to: viewTop + viewHeight + screens * viewHeight };
}

/** The rows of the end of a log, `screens` views of them and one more, when nothing was scrolled yet. */
export function spanAtEnd(tops: readonly number[], gap: number, viewHeight: number, screens: number): Span {
  const end = Math.max(0, (tops.at(-1) ?? 0) - gap);
  return { from: end - (1 + screens) * viewHeight, to: end + viewHeight };
}

/**
 * Whether the rows `[first, end)` in the page reach over `needed`, as far as there are rows:
 * above the first row and below the last there is nothing to put in.
 */
export function covers(tops: readonly number[], gap: number, [first, end]: readonly [number, number], needed: Span): boolean {
  const n = tops.length - 1;
  if (n === 0) return true;
  // The gaps either side count as in: there is nothing in them to put in.
  const top = first <= 0 ? Number.NEGATIVE_INFINITY : (tops[first] ?? 0) - gap;
  const bottom = end >= n ? Number.POSITIVE_INFINITY : (tops[end] ?? 0);
  return first < end ? top <= needed.from && bottom >= needed.to : first <= 0 && end >= n;
}

const clip = (span: Span, within: Span): Span => ({ from: Math.max(span.from, within.from), to: Math.min(span.to, within.to) });

/**
 * The span of rows to put in the page next, the rows `range` being in it now and the view at
 * `viewTop` (content pixels), `viewHeight` high; null when nothing is to change. `now`: the view
 * itself (or `NEAR_SCREENS` around it) is not all in the page, so this cannot wait for the next
 * frame. Otherwise a step of `STEP_SCREENS` on the side whose rows end nearest the view, up to
 * `FAR_SCREENS`; rows beyond `KEEP_SCREENS` are taken out. Each answer changes the rows in the
 * page, so following them comes to an end.
 */
export function nextSpan(tops: readonly number[], gap: number, range: readonly [number, number], viewTop: number, viewHeight: number): { span: Span; now: boolean } | null {
  const n = tops.length - 1;
  const [first, end] = range;
  const keep = spanAround(viewTop, viewHeight, KEEP_SCREENS);
  const changes = (span: Span) => {
    const [a, b] = rowsIn(tops, gap, span);
    return a !== first || b !== end;
  };
  const must = spanAround(viewTop, viewHeight, NEAR_SCREENS);
  const has = first < end;
  const from = first <= 0 ? Number.NEGATIVE_INFINITY : (tops[first] ?? 0);
  const to = end >= n ? Number.POSITIVE_INFINITY : (tops[end] ?? 0) - gap;
  if (!covers(tops, gap, range, must)) {
    // With the rows in the page when they reach it, else instead of them.
    const span = has && from <= must.to && to >= must.from ? clip({ from: Math.min(from, must.from), to: Math.max(to, must.to) }, keep) : must;
    if (changes(span)) return { span, now: true };
  }
  const want = spanAround(viewTop, viewHeight, FAR_SCREENS);
  const above = from > want.from;
  const below = to < want.to;
  if (above || below) {
    const step = STEP_SCREENS * viewHeight;
    const span = { from, to };
    if (above && (!below || viewTop - from <= to - (viewTop + viewHeight))) span.from = Math.max(want.from, from - step);
    else span.to = Math.min(want.to, to + step);
    const next = clip(span, keep);
    if (changes(next)) return { span: next, now: false };
  }
  const kept = clip({ from, to }, keep);
  return changes(kept) ? { span: kept, now: false } : null;
}

/** What the conversation holds, in order: rows in the page, and spacers for runs of the others. */
export type Segment = { kind: 'row'; index: number } | { kind: 'spacer'; first: number; end: number; height: number };

/**
 * The rows in the page and spacers for the others: a spacer for rows `[a, b)` is as tall as
 * they are with the gaps between them, so with the gap around it everything below it sits
 * where it would with every row in the page.
 */
export function segments(heights: readonly number[], gap: number, mounted: (index: number) => boolean): Segment[] {
  const out: Segment[] = [];
  let run = -1;
  let height = 0;
  const close = (end: number) => {
    if (run < 0) return;
    out.push({ kind: 'spacer', first: run, end, height: height + (end - run - 1) * gap });
    run = -1;
    height = 0;
  };
  for (let i = 0; i < heights.length; i++) {
    if (mounted(i)) {
      close(i);
      out.push({ kind: 'row', index: i });
    } else {
      if (run < 0) run = i;
      height += heights[i] ?? 0;
    }
  }
  close(heights.length);
  return out;
}

/**
 * Which rows are in the page: those `span` reaches into, those always in it (`pinned`: the turn
 * being answered, the row with the focus and its neighbours), and every row of a short log.
 */
export function mountedRows(tops: readonly number[], gap: number, span: Span, pinned: Iterable<number>, virtualise: boolean): { range: [number, number]; mounted: (index: number) => boolean } {
  const n = tops.length - 1;
  if (!virtualise) return { range: [0, n], mounted: () => true };
  const range = rowsIn(tops, gap, span);
  const extra = new Set<number>();
  for (const i of pinned) if (i >= 0 && i < n && (i < range[0] || i >= range[1])) extra.add(i);
  return { range, mounted: (i) => (i >= range[0] && i < range[1]) || extra.has(i) };
}

/** The rows of a log as laid out: their keys and heights. */
export interface Layout {
  keys: readonly string[];
  heights: readonly number[];
}

/**
 * Where the view's top goes (content pixels) when the rows change from `before` to `after`, so
 * that what the person reads stays where it is: the first row reaching below the view's top is
 * the anchor, and keeps its distance to the view's top. When it is gone, the next one that is
 * still there; below every row (a form, the end), what follows the rows.
 */
export function anchoredViewTop(before: Layout, after: Layout, gap: number, viewTop: number): number {
  const oldTops = rowTops(before.heights, gap);
  const newTops = rowTops(after.heights, gap);
  const where = new Map<string, number>();
  after.keys.forEach((key, i) => where.set(key, i));
  for (let i = firstEndingBelow(oldTops, gap, viewTop); i < before.keys.length; i++) {
    const j = where.get(before.keys[i] ?? '');
    if (j !== undefined) return viewTop + ((newTops[j] ?? 0) - (oldTops[i] ?? 0));
  }
  // Nothing read is a row any more, or the view's top is below them all: what follows the rows.
  return viewTop + ((newTops.at(-1) ?? 0) - (oldTops.at(-1) ?? 0));
}

/** Pixels of a line of an answer's text, and of the text's width in characters. */
const LINE_PX = 22;
const CHAR_PX = 8;
/** The author's line, the margins between blocks. */
const HEAD_PX = 24;
const BLOCK_PX = 10;

/**
 * A row's height before it was ever in the page, from its text as written (`width` px wide):
 * lines wrapped at the width, a line each for code, a table's and a list's rows. Rough; the
 * row's own height replaces it once it is drawn, and `calibrate` corrects it meanwhile.
 */
export function estimateHeight(text: string, width: number, user = false): number {
  const perLine = Math.max(20, Math.floor((user ? width * 0.85 - 28 : width) / CHAR_PX));
  let lines = 0;
  let blocks = 0;
  let fenced = false;
  let blank = true;
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (trimmed.startsWith('```')) {
      fenced = !fenced;
      lines += 1;
      if (fenced && blank) blocks += 1;
      blank = false;
      continue;
    }
    if (fenced) {
      lines += 1;
      continue;
    }
    if (trimmed === '') {
      blank = true;
      continue;
    }
    if (blank) blocks += 1;
    blank = false;
    // Table rows take a little more than a line; every other line wraps at the width.
    lines += trimmed.startsWith('|') ? 1.5 : Math.max(1, Math.ceil(trimmed.length / perLine));
  }
  return Math.round(HEAD_PX + lines * LINE_PX + Math.max(0, blocks - 1) * BLOCK_PX + (user ? 20 : 0));
}

/**
 * How far the estimates are from what was measured: the ratio of the measured heights to their
 * estimates, within [0.5, 2] (a few odd rows must not make the others absurd), 1 with none.
 */
export function calibrate(measured: number, estimated: number): number {
  if (!(measured > 0) || !(estimated > 0)) return 1;
  return Math.min(2, Math.max(0.5, measured / estimated));
}
