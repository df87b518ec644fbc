/**
 * A long conversation drawn in part (issue 27): only the rows near the view are in the page, the
 * others are spacers as tall as they were when last drawn (or as they are estimated to be until
 * then), so the scroll bar and the scroll position stay right. The arithmetic is in
 * `virtualLog.ts`; here it meets the page.
 *
 * - Each row in the page is measured when it comes in (in the commit that puts it there, before
 *   it is painted) and whenever it changes size (a ResizeObserver); heights are kept by row key
 *   (a message's id), so scrolling back or opening the conversation again lays it out the same.
 * - When rows above the view change height, the view moves with them, so what the person reads
 *   stays where it is (`anchoredViewTop`); a view at the end of the log stays at the end (unless
 *   an answer streams: then following it is `follow.ts`'s). WebKit has no CSS scroll anchoring
 *   and Chromium's would do it a second time, so the log turns it off (styles.css).
 * - The rows in view are put in the page at once; those up to a screen and a half above and below
 *   it, half a screen of them a frame (`nextSpan`): the task drawing them stays short however
 *   fast the person scrolls. Scrolling within what is in the page costs nothing.
 * - Rows marked `pinned` (a turn being answered) and the row with the focus, with its neighbours,
 *   are always in the page: Tab goes from row to row, and nothing focused is ever taken away.
 * - Home and End in the log go to the true top and end at once (the browser's animated scroll
 *   would stop where the end was estimated to be).
 */
import { useCallback, useLayoutEffect, useState, useSyncExternalStore } from 'react';
import {
  FOCUS_NEIGHBOURS,
  NEAR_SCREENS,
  VIRTUALISE_ABOVE,
  anchoredViewTop,
  calibrate,
  mountedRows,
  nextSpan,
  rowTops,
  segments,
  spanAtEnd,
  type Layout,
  type Segment,
  type Span,
} from './virtualLog';
import { LOG_ADJUST_EVENT } from './logScroll';

export interface RowSpec {
  key: string;
  /** Its height in pixels before it is measured (`estimateHeight`). */
  estimate: number;
  /** Always in the page. */
  pinned?: boolean;
}

/** Measured heights by row key, for every log (a key is a message's id): bounded, oldest out first. */
const measured = new Map<string, number>();
const MEASURED_MAX = 50_000;
/** The sums behind the estimates' correction (`calibrate`): rows measured, and their estimates. */
const calibration = { measured: 0, estimated: 0 };

function remember(key: string, height: number) {
  measured.delete(key);
  measured.set(key, height);
  if (measured.size > MEASURED_MAX) {
    const oldest = measured.keys().next().value;
    if (oldest !== undefined) measured.delete(oldest);
  }
}

/** Forgets every measured height (tests). */
export function forgetMeasuredRows() {
  measured.clear();
  calibration.measured = 0;
  calibration.estimated = 0;
}

interface Snapshot {
  /** The stretch of the conversation whose rows are in the page; null: its end (not scrolled yet). */
  span: Span | null;
  /** The row holding the focus. */
  focusKey: string | null;
  /** Estimates are multiplied by this (`calibrate`). */
  ratio: number;
  /** The gap between rows, as the page's style has it. */
  gap: number;
  /** Bumped to lay the rows out again with the same span (their heights changed). */
  version: number;
}

/** What the page shows now: the rows as laid out, and which of them are in the page. */
interface Committed extends Layout {
  range: [number, number];
  mountedKeys: Set<string>;
  index: Map<string, number>;
}

/**
 * How near the bottom of the log's content the view must be to be at its end: the log's padding
 * (scrolling the end of the conversation into view, as `ConversationLog` does, leaves it below).
 */
const END_SLACK_PX = 32;

/** `.conversation`'s gap in styles.css, until the page's style is read. */
const DEFAULT_GAP = 16;

function editable(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || target.closest('input, textarea, select, [contenteditable="true"], [role="textbox"]') !== null);
}

class VirtualLog {
  private listeners = new Set<() => void>();
  private snap: Snapshot = { span: null, focusKey: null, ratio: calibrate(calibration.measured, calibration.estimated), gap: DEFAULT_GAP, version: 0 };
  private committed: Committed | null = null;
  /** Spans published since the person last scrolled: a bound on laying out again and again. */
  private republished = 0;
  private log: HTMLElement | null = null;
  private conversation: HTMLElement | null = null;
  private observer: ResizeObserver | null = null;
  private elements = new Map<string, HTMLElement>();
  private frame: number | null = null;
  private pointerInLog = false;
  /** The conversation's top in the log's scrolled content, and the log's height. */
  private origin = 0;
  private viewHeight = 0;
  private virtualise = false;
  private streaming = false;
  /** The view is at the end of the log (and stays there as rows change height). */
  private atEnd = true;
  /** The log's scroll position when last seen (a scroll event, or scrolled from here). */
  private lastTop = 0;
  private onAdjust: (by: number) => void = () => {};

  /** What the log is now: long enough to draw in part, an answer streaming, whom to tell of a scroll. */
  configure(virtualise: boolean, streaming: boolean, onAdjust: (by: number) => void) {
    this.virtualise = virtualise;
    this.streaming = streaming;
    this.onAdjust = onAdjust;
  }

  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
  getSnapshot = () => this.snap;

  private publish(patch: Partial<Snapshot>) {
    this.snap = { ...this.snap, ...patch };
    for (const listener of this.listeners) listener();
  }

  /** The conversation element: the log around it is watched while it is in the page. */
  attach = (conversation: HTMLElement) => {
    const log = conversation.closest<HTMLElement>('[role="log"]');
    this.conversation = conversation;
    this.log = log;
    const gap = Number.parseFloat(getComputedStyle(conversation).rowGap) || 0;
    if (gap !== this.snap.gap) this.publish({ gap });
    if (!log) return () => {};
    this.observer =
      typeof ResizeObserver === 'function'
        ? new ResizeObserver((entries) => {
            this.resized(entries);
          })
        : null;
    this.observer?.observe(log);
    for (const el of this.elements.values()) this.observer?.observe(el);
    const onScroll = () => {
      this.republished = 0;
      // At the end once the view reaches it; no longer once it goes up. Not when the content
      // grew below a view that did not move (text parsed, rows measured since the scroll).
      const top = log.scrollTop;
      if (top + log.clientHeight >= log.scrollHeight - END_SLACK_PX) this.atEnd = true;
      else if (top < this.lastTop - 1) this.atEnd = false;
      this.lastTop = top;
      this.update();
    };
    const onKey = (event: KeyboardEvent) => this.key(event);
    const onPointer = (event: PointerEvent) => {
      this.pointerInLog = event.target instanceof Node && log.contains(event.target);
    };
    const onFocusIn = (event: FocusEvent) => {
      const row = event.target instanceof HTMLElement ? event.target.closest<HTMLElement>('[data-row-key]') : null;
      const key = row?.dataset.rowKey ?? null;
      if (key !== this.snap.focusKey) this.publish({ focusKey: key });
    };
    const onFocusOut = () => {
      // Once the focus has gone (the window losing it keeps it where it was).
      setTimeout(() => {
        if (this.snap.focusKey !== null && !log.contains(document.activeElement)) this.publish({ focusKey: null });
      }, 0);
    };
    // The page scrolled the log to keep the view of a long answer (components/useBlockWindow.ts):
    // not the person scrolling.
    const onAdjusted = (event: Event) => {
      this.lastTop = log.scrollTop;
      this.onAdjust((event as CustomEvent<number>).detail);
    };
    log.addEventListener('scroll', onScroll, { passive: true });
    log.addEventListener(LOG_ADJUST_EVENT, onAdjusted);
    log.addEventListener('focusin', onFocusIn);
    log.addEventListener('focusout', onFocusOut);
    document.addEventListener('keydown', onKey);
    document.addEventListener('pointerdown', onPointer, true);
    return () => {
      log.removeEventListener('scroll', onScroll);
      log.removeEventListener(LOG_ADJUST_EVENT, onAdjusted);
      log.removeEventListener('focusin', onFocusIn);
      log.removeEventListener('focusout', onFocusOut);
      document.removeEventListener('keydown', onKey);
      document.removeEventListener('pointerdown', onPointer, true);
      this.observer?.disconnect();
      this.observer = null;
      if (this.frame !== null) cancelAnimationFrame(this.frame);
      this.frame = null;
      this.log = null;
      this.conversation = null;
    };
  };

  /** A row's element, while it is in the page. */
  row = (el: HTMLElement | null) => {
    if (!el) return;
    const key = el.dataset.rowKey ?? '';
    this.elements.set(key, el);
    this.observer?.observe(el);
    return () => {
      if (this.elements.get(key) === el) this.elements.delete(key);
      this.observer?.unobserve(el);
    };
  };

  heightOf(key: string, estimate: number, ratio: number): number {
    return measured.get(key) ?? Math.round(estimate * ratio);
  }

  /** The log is laid out (not in a test's DOM, not hidden). */
  private laidOut(): boolean {
    return this.log !== null && this.log.clientHeight > 0;
  }

  private measureLayout() {
    const log = this.log;
    const conversation = this.conversation;
    if (!log || !conversation) return;
    this.viewHeight = log.clientHeight;
    this.origin = conversation.getBoundingClientRect().top - log.getBoundingClientRect().top + log.scrollTop;
  }

  private scrollToEnd() {
    const log = this.log;
    if (!log) return;
    const before = log.scrollTop;
    log.scrollTop = log.scrollHeight;
    this.atEnd = true;
    this.lastTop = log.scrollTop;
    if (log.scrollTop !== before) this.onAdjust(log.scrollTop - before);
  }

  /**
   * The rows have changed from `before` to `after` in the page: the view keeps what it showed
   * (or the end, when it was there and no answer streams).
   */
  private keepView(before: Layout, after: Layout) {
    const log = this.log;
    if (!log || !this.laidOut()) return;
    if (this.atEnd && !this.streaming) {
      this.scrollToEnd();
      return;
    }
    const top = log.scrollTop - this.origin;
    // While an answer streams, a view below every row as they were is in the room the log keeps
    // below the answer, where its follow put it in the commit that grew the answer
    // (ConversationLog.tsx): kept from the rows' old end, it went down by all they grew, which the
    // room cut short, and the newest text sat at the view's top edge.
    if (this.streaming && top >= (rowTops(before.heights, this.snap.gap).at(-1) ?? 0) - this.snap.gap) return;
    const to = anchoredViewTop(before, after, this.snap.gap, top);
    if (Math.abs(to - top) < 0.5) return;
    const was = log.scrollTop;
    log.scrollTop = to + this.origin;
    this.lastTop = log.scrollTop;
    this.onAdjust(log.scrollTop - was);
  }

  /** After each render, in the page before it is painted: the new rows measured, the view kept. */
  commit(keys: readonly string[], rendered: readonly number[], range: [number, number], mountedKeys: Set<string>, estimates: Map<string, number>) {
    const heights = [...rendered];
    const before = this.committed;
    const fresh: number[] = [];
    const index = new Map<string, number>();
    keys.forEach((key, i) => {
      index.set(key, i);
      if (mountedKeys.has(key) && !before?.mountedKeys.has(key)) fresh.push(i);
    });
    const same =
      before !== null && fresh.length === 0 && before.keys.length === keys.length && keys.every((key, i) => key === before.keys[i] && heights[i] === before.heights[i]);
    this.committed = { keys, heights, range, mountedKeys, index };
    if (same) return;
    if (fresh.length > 0 && this.log) {
      // Measured now, in the layout the page would make anyway before painting.
      let sum = 0;
      let estimated = 0;
      for (const i of fresh) {
        const key = keys[i] ?? '';
        const height = this.elements.get(key)?.getBoundingClientRect().height ?? 0;
        if (!(height > 0)) continue;
        if (!measured.has(key)) {
          sum += height;
          estimated += estimates.get(key) ?? height;
        }
        heights[i] = height;
        remember(key, height);
      }
      if (estimated > 0) {
        calibration.measured += sum;
        calibration.estimated += estimated;
      }
    }
    if (before === null) {
      // Opened: at its end, as the person left it or as it was written.
      this.measureLayout();
      if (this.laidOut()) this.scrollToEnd();
    } else {
      this.keepView(before, this.committed);
    }
    const ratio = calibrate(calibration.measured, calibration.estimated);
    if (Math.abs(ratio - this.snap.ratio) > 0.05 * this.snap.ratio) this.publish({ ratio });
    this.update();
  }

  /** Rows changed size in the page (text parsed, an image loaded, the window resized). */
  private resized(entries: ResizeObserverEntry[]) {
    const committed = this.committed;
    let changed: number[] | null = null;
    for (const entry of entries) {
      const target = entry.target as HTMLElement;
      if (target === this.log) {
        this.measureLayout();
        continue;
      }
      const key = target.dataset.rowKey;
      const i = key === undefined ? undefined : committed?.index.get(key);
      if (key === undefined || i === undefined || !committed) continue;
      const height = entry.borderBoxSize?.[0]?.blockSize ?? target.getBoundingClientRect().height;
      if (!(height > 0) || Math.abs(height - (committed.heights[i] ?? 0)) < 0.5) continue;
      changed ??= [...committed.heights];
      changed[i] = height;
      remember(key, height);
    }
    if (committed && changed) {
      const before: Layout = { keys: committed.keys, heights: committed.heights };
      this.committed = { ...committed, heights: changed };
      this.keepView(before, this.committed);
    }
    // Rows put in the page from here would be measured again in this frame's observation:
    // in the next frame instead.
    this.nextFrame();
  }

  /** Home and End in the log: its true top and end, at once. */
  private key(event: KeyboardEvent) {
    const log = this.log;
    if (!log || !this.virtualise || event.defaultPrevented || event.altKey || event.metaKey || event.shiftKey) return;
    if (event.key !== 'Home' && event.key !== 'End') return;
    const target = event.target;
    const inLog = target instanceof Node && log.contains(target);
    if (!inLog && !(target === document.body && this.pointerInLog)) return;
    if (editable(target)) return;
    event.preventDefault();
    if (event.key === 'End') {
      this.scrollToEnd();
    } else {
      log.scrollTop = 0;
      this.atEnd = false;
      this.lastTop = 0;
    }
  }

  /** The next frame's `update`, once. */
  private nextFrame() {
    if (this.frame !== null) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = null;
      this.republished = 0;
      this.update(true);
    });
  }

  /**
   * Puts rows in the page or takes them out for where the view is now (`nextSpan`): the rows in
   * view at once, those near it a step a frame (`inFrame`: this is that frame).
   */
  update(inFrame = false) {
    const log = this.log;
    const committed = this.committed;
    if (!log || !committed || !this.virtualise || !this.laidOut()) return;
    const top = log.scrollTop - this.origin;
    const height = this.viewHeight || log.clientHeight;
    const next = nextSpan(rowTops(committed.heights, this.snap.gap), this.snap.gap, committed.range, top, height);
    if (!next) return;
    if (!next.now && !inFrame) {
      this.nextFrame();
      return;
    }
    // Rows measured in the commit that puts them in can leave the view short of rows: put in
    // again, a few times at most before the person scrolls or the next frame.
    if (this.republished >= 4) return;
    this.republished += 1;
    this.publish({ span: next.span, version: this.snap.version + 1 });
  }
}

export interface VirtualRows {
  /** What the conversation holds: the rows in the page, spacers for the others. */
  segments: Segment[];
  /** The log is drawn in part (longer than `VIRTUALISE_ABOVE` rows). */
  virtualised: boolean;
  /** The conversation element's ref. */
  watchConversation: (el: HTMLElement | null) => (() => void) | undefined;
  /** Each row element's ref (the element has `data-row-key`). */
  watchRow: (el: HTMLElement | null) => (() => void) | undefined;
}

/**
 * The rows of a log to put in the page. A log of `VIRTUALISE_ABOVE` rows or fewer has every row
 * in the page; a longer one the rows near the view. `streaming`: an answer is being followed (the
 * end is `follow.ts`'s then); `onAdjust`: the log was scrolled by this many pixels to keep the view.
 */
export function useVirtualRows(rows: readonly RowSpec[], { streaming, onAdjust }: { streaming: boolean; onAdjust: (by: number) => void }): VirtualRows {
  const [store] = useState(() => new VirtualLog());
  const snap = useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot);
  const virtualise = rows.length > VIRTUALISE_ABOVE;
  const keys = rows.map((r) => r.key);
  const heights = rows.map((r) => store.heightOf(r.key, r.estimate, snap.ratio));
  const tops = rowTops(heights, snap.gap);
  const viewHeight = typeof window === 'undefined' ? 800 : window.innerHeight || 800;
  const span = snap.span ?? spanAtEnd(tops, snap.gap, viewHeight, NEAR_SCREENS);
  const pinned: number[] = [];
  rows.forEach((r, i) => {
    if (r.pinned) pinned.push(i);
    if (r.key === snap.focusKey) for (let k = i - FOCUS_NEIGHBOURS; k <= i + FOCUS_NEIGHBOURS; k++) pinned.push(k);
  });
  const { range, mounted } = mountedRows(tops, snap.gap, span, pinned, virtualise);
  const segs = segments(heights, snap.gap, mounted);
  const mountedKeys = new Set<string>();
  for (const s of segs) if (s.kind === 'row') mountedKeys.add(keys[s.index] ?? '');
  const estimates = new Map(rows.map((r) => [r.key, r.estimate]));

  useLayoutEffect(() => {
    store.configure(virtualise, streaming, onAdjust);
    store.commit(keys, heights, range, mountedKeys, estimates);
  });

  const watchConversation = useCallback((el: HTMLElement | null) => (el ? store.attach(el) : undefined), [store]);
  return { segments: segs, virtualised: virtualise, watchConversation, watchRow: store.row };
}
