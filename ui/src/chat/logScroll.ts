/**
 * The log scrolled by the page itself to keep what the person reads in place (a long answer's
 * groups put in or taken out above the view: components/useBlockWindow.ts), said with an event
 * on the log, so that what reads its scroll position as the person's (useVirtualRows.ts: at the
 * end or not; ConversationLog.tsx: following the answer or not) does not take it for theirs.
 */

/** Dispatched on the log (`[role="log"]`) after such a scroll; `detail`: the pixels it moved. */
export const LOG_ADJUST_EVENT = 'tessera-log-adjust';

/**
 * Scrolls `log` to `by` pixels below `from` (its scroll position now, unless the browser moved
 * it meanwhile: then where it was) to keep the view, and says so; returns how far it moved from
 * `from`.
 */
export function adjustLogScroll(log: HTMLElement, by: number, from = log.scrollTop): number {
  log.scrollTop = from + by;
  const moved = log.scrollTop - from;
  if (moved !== 0) log.dispatchEvent(new CustomEvent<number>(LOG_ADJUST_EVENT, { detail: moved }));
  return moved;
}
