/**
 * The arithmetic of a long answer drawn in part (issue 27): one answer can hold ~1,000 Markdown
 * blocks (a 20k-token answer), drawn in groups (Markdown.tsx); only the groups near the log's
 * view are in the page, the others are spacers as tall as they were when last drawn (estimated
 * until then). Pure functions; `useBlockWindow.ts` applies them.
 */
import { calibrate, estimateHeight } from '../virtualLog';

/**
 * Answers of more groups than this (of 32 blocks: Markdown.tsx) are drawn in part; up to this
 * many (96 blocks, a few hundred elements), every group is in the page, and found by the
 * browser's search: drawing them in part would save little.
 */
export const WINDOW_ABOVE_GROUPS = 3;
/** A group out of the page is put in once it comes within this many views of the log's view… */
export const NEAR_SCREENS = 1;
/** …and one in the page is taken out once it is further than this many views from it. */
export const FAR_SCREENS = 2;
/** Groups either side of the one holding the focus kept in the page: Tab goes on into them. */
export const FOCUS_NEIGHBOURS = 1;
/** Views of groups at an answer's end put in the page before it was ever seen (opened at its end). */
export const INITIAL_SCREENS = 2;

/** The author's line in `estimateHeight`, which a group has not. */
const HEAD_PX = 24;
/** The width groups are estimated at before their answer was laid out (styles.css `--content-width`). */
export const ESTIMATE_WIDTH = 760;

/**
 * A group's key for the heights kept of it (`useBlockWindow.ts`): its blocks' count and length,
 * and its first and last characters. Two groups with the same key are taken to be as tall;
 * when they are not, the height is corrected as soon as the group is drawn.
 */
export function groupKey(blocks: readonly string[]): string {
  let length = 0;
  for (const block of blocks) length += block.length;
  const first = blocks[0] ?? '';
  const last = blocks.at(-1) ?? '';
  return `${blocks.length}:${length}:${first.slice(0, 48)}\u0000${last.slice(-48)}`;
}

/** A group's height before it was ever drawn, from its text as written (`estimateHeight`). */
export function estimateGroupHeight(blocks: readonly string[], width: number): number {
  return Math.max(20, estimateHeight(blocks.join(''), width) - HEAD_PX);
}

/** Where the estimates are corrected: the groups measured, and their estimates. */
export interface Calibration {
  measured: number;
  estimated: number;
}

/** An estimate corrected by what was measured so far (`calibrate`: within [0.5, 2]). */
export function calibrated(estimate: number, calibration: Calibration): number {
  return Math.round(estimate * calibrate(calibration.measured, calibration.estimated));
}

/**
 * The groups out of the page when an answer comes into it without its view known yet: all but
 * the last ones, `screens` views of them (an answer is opened, or comes into the page, at its
 * end far more often than at its top). `heights` are the groups' heights (estimates), `gap`
 * the space between two.
 */
export function initialOut(heights: readonly number[], gap: number, viewHeight: number, screens = INITIAL_SCREENS): Set<number> {
  const out = new Set<number>();
  let below = 0;
  let i = heights.length - 1;
  // The last group is always in: it is where the answer ends (and grows).
  for (; i >= 0; i--) {
    if (below >= screens * viewHeight && i < heights.length - 1) break;
    below += (heights[i] ?? 0) + gap;
  }
  for (; i >= 0; i--) out.add(i);
  return out;
}

/**
 * The groups out of the page next, from those out now (`out`), what the observers last said of
 * each group (`near`: within `NEAR_SCREENS` of the view; `far`: within `FAR_SCREENS`; absent:
 * not known yet) and those that must be in (`pinned`: the focus, the selection). A group out
 * comes in once it is near; a group in goes out once it is not even far; in between nothing
 * changes, so a group at the edge does not come and go as the view moves a pixel. Returns
 * `out` itself when nothing changes.
 */
export function nextOut(
  out: ReadonlySet<number>,
  count: number,
  near: ReadonlyMap<number, boolean>,
  far: ReadonlyMap<number, boolean>,
  pinned: ReadonlySet<number>,
): ReadonlySet<number> {
  let next: Set<number> | null = null;
  for (let i = 0; i < count; i++) {
    const isOut = out.has(i);
    if (isOut && (pinned.has(i) || near.get(i) === true)) {
      next ??= new Set(out);
      next.delete(i);
    } else if (!isOut && !pinned.has(i) && far.get(i) === false) {
      next ??= new Set(out);
      next.add(i);
    }
  }
  // Groups that are no more (the text was replaced by a shorter one) are forgotten.
  for (const i of out) {
    if (i >= count) {
      next ??= new Set(out);
      next.delete(i);
    }
  }
  return next ?? out;
}

/** The groups that must stay in the page: the focus's and its neighbours, the selection's ends and what is between them. */
export function pinnedGroups(focus: number | null, selection: readonly [number, number] | null, count: number): Set<number> {
  const pinned = new Set<number>();
  if (focus !== null) {
    for (let i = focus - FOCUS_NEIGHBOURS; i <= focus + FOCUS_NEIGHBOURS; i++) if (i >= 0 && i < count) pinned.add(i);
  }
  if (selection) {
    const [a, b] = selection[0] <= selection[1] ? selection : [selection[1], selection[0]];
    for (let i = Math.max(0, a); i <= b && i < count; i++) pinned.add(i);
  }
  return pinned;
}

/** A group whose height changed in the page: where it starts now (viewport pixels), its height before and now. */
export interface HeightChange {
  top: number;
  before: number;
  after: number;
  /** It was a spacer (blank) before: a spacer of another height, or its group put in. */
  blank?: boolean;
}

/**
 * How far to scroll so that what the person reads stays where it is, when groups or spacers
 * changed height and no block of a group in the page is at the view's top (`viewTop`, viewport
 * pixels) to keep in place: by the changes above it. A group reaching into the view is not
 * above it (what is seen of it is its own top, which did not move; it grows below); a spacer
 * reaching into it is (what was seen of it was blank: what follows it stays where it was).
 */
export function shiftAbove(changes: readonly HeightChange[], viewTop: number): number {
  const sorted = [...changes].sort((a, b) => a.top - b.top);
  let shift = 0;
  for (const change of sorted) {
    // Where it started before the changes above it moved it.
    const top = change.top - shift;
    const end = change.blank ? top : top + change.before;
    if (end > viewTop + 0.5) break;
    shift += change.after - change.before;
  }
  return Math.round(shift * 100) / 100;
}
