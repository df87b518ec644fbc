/**
 * How the log follows an answer as it streams: by pages, not line by line. Scrolling the log
 * moves everything in it, so the whole view is drawn again; without a GPU (a virtual machine,
 * a remote session) WebKit draws it on the page's main thread, and a long answer scrolled at
 * every frame kept that thread busy for 150–250 ms at a time (`make figures`). So the log
 * scrolls only when the newest text reaches the bottom of the view, and then far enough that
 * it sits at `1 - AHEAD` of the view's height, with room below for what comes next: at each
 * jump the conversation is given a height reaching that far ([`roomBelow`]), so the answer grows
 * into room that is already there and nothing below it moves (moving it would redraw it). An
 * answer streaming very fast gets more room at each jump (`aheadFor`), so it jumps less often.
 */

/** The part of the view left free below the newest text after a jump. */
export const AHEAD = 0.4;
/** The most of the view a jump leaves free, for an answer streaming faster than anyone reads. */
export const AHEAD_MAX = 0.75;
/**
 * How long the room left at a jump should last at the answer's pace. Each jump draws the whole
 * view again (~4 ms of the page's CPU and ~2 MB of fresh memory without a GPU): a model writing
 * 6,000 px a second made the log jump 17 times a second with `AHEAD` alone.
 */
export const ROOM_MS = 250;

/** The part of the view to leave free at a jump for an answer growing `pxPerSecond`. */
export function aheadFor(pxPerSecond: number, viewHeight: number): number {
  if (viewHeight <= 0 || !(pxPerSecond > 0)) return AHEAD;
  return Math.min(AHEAD_MAX, Math.max(AHEAD, (pxPerSecond * ROOM_MS) / 1000 / viewHeight));
}
/** The newest text counts as in view while it ends at least this far above the view's bottom. */
export const MARGIN_PX = 48;

export interface FollowGeometry {
  /** The top and the height of the scrolled view, in viewport pixels. */
  viewTop: number;
  viewHeight: number;
  /** Where the content ends (the top of the log's end marker), in viewport pixels. */
  contentEnd: number;
  /** The part of the view to leave free below it (`aheadFor`); `AHEAD` when not given. */
  ahead?: number;
}

/** How many pixels to scroll down so the newest text stays in view; 0 while it is. */
export function followBy({ viewTop, viewHeight, contentEnd, ahead = AHEAD }: FollowGeometry): number {
  if (viewHeight <= 0 || contentEnd <= viewTop + viewHeight - MARGIN_PX) return 0;
  return Math.max(0, Math.round(contentEnd - viewTop - viewHeight * (1 - ahead)));
}

/**
 * The height to give the conversation at a jump (its content ending `contentHeight` below its
 * top, in a view `viewHeight` tall): the jump's room below the newest text, and a margin.
 */
export function roomBelow(contentHeight: number, viewHeight: number, ahead = AHEAD): number {
  return Math.ceil(contentHeight + viewHeight * ahead + MARGIN_PX);
}
