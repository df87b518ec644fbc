/**
 * A long answer drawn in part (issue 27): the log draws only the rows near its view
 * (useVirtualRows.ts), but one answer is one row, and a 20k-token answer is ~1,000 Markdown
 * blocks (~20,000 elements). Its blocks are drawn in groups (Markdown.tsx); here only the groups
 * near the log's view are in the page (~450 elements at such an answer's end), the others are
 * spacers as tall as they were when last drawn (estimated until then: groupHeights.ts). The
 * arithmetic is in `blockWindow.ts`. With blocks cut as strings of their own
 * (markdownBlocks.ts `detached`), WebKit's web process was ~120 MB smaller after a streamed
 * 20k-token answer (WebKitGTK under Xvfb, 3 runs each: 503–509 MB before, 381–384 MB after).
 *
 * - Two IntersectionObservers on the log watch each group and spacer: one reaching
 *   `NEAR_SCREENS` views above and below the view (a spacer in it is replaced by its group), one
 *   `FAR_SCREENS` (a group out of it is replaced by a spacer).
 * - When groups above the view change height, the log is scrolled by as much, so what the person
 *   reads stays where it is (viewKeeper.ts).
 * - The group holding the focus and its neighbours, and the groups the selection reaches, stay in
 *   the page: Tab goes on from group to group, and a selection (and what Copy takes of it) is not
 *   taken away.
 * - A group coming back into the page is drawn from the parse cache (markdownClient.ts, ~1M
 *   characters of answers), not parsed again.
 * - The browser's search (Ctrl+F) finds only what is in the page: text of a long answer more
 *   than a screen or two from the view is not found, as for the log's rows (useVirtualRows.ts).
 *   The conversation list's search (the sidebar) searches whole conversations.
 */
import { useCallback, useLayoutEffect, useState, useSyncExternalStore } from 'react';
import { FAR_SCREENS, NEAR_SCREENS, WINDOW_ABOVE_GROUPS, groupKey, initialOut, nextOut, pinnedGroups, type HeightChange } from './blockWindow';
import { GroupHeights } from './groupHeights';
import { ViewKeeper } from './viewKeeper';

/** The space between two groups (styles.css: `.markdown > * + *`). */
const GROUP_GAP = 10;

/** Whether the page can watch where groups are (not in a test's DOM without the observers). */
function canWindow(): boolean {
  return typeof IntersectionObserver === 'function' && typeof ResizeObserver === 'function';
}

const NONE: ReadonlySet<number> = new Set();

/** The index of the group (or spacer) `el` is in, if any. */
function indexOf(el: Element | null): number | null {
  const group = el?.closest<HTMLElement>('[data-group]');
  const i = group ? Number(group.dataset.group) : Number.NaN;
  return Number.isInteger(i) ? i : null;
}

/**
 * Calls `changed` with the group holding the focus in `container` and the groups the selection's
 * ends are in (null: none), whenever either changes. Returns what stops it.
 */
function watchPins(container: HTMLElement, changed: (focus: number | null, selection: [number, number] | null) => void): () => void {
  let focus: number | null = null;
  let selection: [number, number] | null = null;
  const onFocusIn = (event: FocusEvent) => {
    const i = indexOf(event.target instanceof Element ? event.target : null);
    if (i === focus) return;
    focus = i;
    changed(focus, selection);
  };
  const onFocusOut = () => {
    // Once the focus has gone (the window losing it keeps it where it was).
    setTimeout(() => {
      if (focus === null || container.contains(document.activeElement)) return;
      focus = null;
      changed(focus, selection);
    }, 0);
  };
  /** The group `node` is in; for a node out of the answer, the answer's first or last group (past it: the pins stop at the last). */
  const groupOf = (node: Node): number | null => {
    if (container.contains(node)) return indexOf(node instanceof Element ? node : node.parentElement);
    return container.compareDocumentPosition(node) & Node.DOCUMENT_POSITION_FOLLOWING ? Number.MAX_SAFE_INTEGER : 0;
  };
  const onSelection = () => {
    const range = document.getSelection();
    const live = range !== null && range.rangeCount > 0 && !range.isCollapsed && range.anchorNode !== null && range.focusNode !== null;
    const inside = live && (container.contains(range.anchorNode) || container.contains(range.focusNode));
    // A selection from inside the answer to out of it keeps the answer from that end to its own
    // end on that side. One reaching across the whole answer from outside keeps none of it: like
    // the log's rows (useVirtualRows.ts), what is out of the page is not in it.
    const next: [number, number] | null = inside ? [groupOf(range.anchorNode) ?? 0, groupOf(range.focusNode) ?? 0] : null;
    if (next?.[0] === selection?.[0] && next?.[1] === selection?.[1]) return;
    selection = next;
    changed(focus, selection);
  };
  container.addEventListener('focusin', onFocusIn);
  container.addEventListener('focusout', onFocusOut);
  document.addEventListener('selectionchange', onSelection);
  return () => {
    container.removeEventListener('focusin', onFocusIn);
    container.removeEventListener('focusout', onFocusOut);
    document.removeEventListener('selectionchange', onSelection);
  };
}

/** One answer's window: which groups are out of the page, kept for React (`useSyncExternalStore`). */
class GroupWindow {
  private listeners = new Set<() => void>();
  /** The groups out of the page (spacers). */
  private out: ReadonlySet<number>;
  private windowed = false;
  private readonly heights: GroupHeights;
  /** The element standing for each group now (the group or its spacer). */
  private readonly elements = new Map<number, HTMLElement>();
  private readonly keeper = new ViewKeeper(this.elements);
  private container: HTMLElement | null = null;
  private nearObserver: IntersectionObserver | null = null;
  private farObserver: IntersectionObserver | null = null;
  private sizeObserver: ResizeObserver | null = null;
  private detach: (() => void) | null = null;
  /** What the observers last said of each group. */
  private near = new Map<number, boolean>();
  private far = new Map<number, boolean>();
  private focus: number | null = null;
  private selection: [number, number] | null = null;
  private pinned: ReadonlySet<number> = NONE;
  /** What the last commit put in the page: the groups out, and their spacers' heights. */
  private committedOut: ReadonlySet<number> = NONE;
  private spacerHeights = new Map<number, number>();

  constructor(blocks: readonly (readonly string[])[]) {
    this.heights = new GroupHeights(blocks);
    // Long when it comes into the page: its end, until the observers say where the view is.
    this.out =
      canWindow() && blocks.length > WINDOW_ABOVE_GROUPS
        ? initialOut(
            blocks.map((_, i) => this.heights.of(i)),
            GROUP_GAP,
            typeof window === 'undefined' ? 800 : window.innerHeight || 800,
          )
        : NONE;
  }

  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  getSnapshot = () => this.out;

  private setOut(out: ReadonlySet<number>) {
    if (out === this.out) return;
    this.out = out;
    for (const listener of this.listeners) listener();
  }

  heightOf(i: number): number {
    return this.heights.of(i);
  }

  /** Whether a render with these groups out and spacers changes what the last commit put in the page. */
  changesWith(out: ReadonlySet<number>, spacerHeights: ReadonlyMap<number, number>): boolean {
    if (out.size !== this.committedOut.size) return true;
    for (const i of out) {
      if (!this.committedOut.has(i)) return true;
      const was = this.spacerHeights.get(i);
      const now = spacerHeights.get(i);
      if (was === undefined || now === undefined || Math.abs(was - now) >= 0.5) return true;
    }
    return false;
  }

  /** Given to each block (`BlockChanges`). */
  readonly blockChanges: BlockChanges = { before: () => this.keeper.beforeChange(), after: () => this.keeper.afterChange() };

  /** This render's groups (before its commit): `heightOf` answers for them. Whether their text changed. */
  render(blocks: readonly (readonly string[])[], keys: readonly string[]): boolean {
    const changed = this.heights.set(blocks, keys);
    if (changed && keys.length > 0) this.keeper.grew();
    return changed;
  }

  /** A render is about to change the page. */
  beforeChange() {
    if (this.windowed) this.keeper.beforeChange();
  }

  /** The answer's element; the log around it is found once the answer is long. */
  attachContainer = (el: HTMLElement | null) => {
    if (!el) return;
    this.container = el;
    if (this.windowed) this.start();
    return () => {
      this.stop();
      this.container = null;
    };
  };

  /** Each group's and spacer's element (with `data-group`). */
  watch = (el: HTMLElement | null) => {
    if (!el) return;
    const i = Number(el.dataset.group);
    this.elements.set(i, el);
    // What was said of the element it replaces no longer holds: a group just put in must not go
    // out again before its own element was seen far (nor a spacer come in before it was seen near).
    this.near.delete(i);
    this.far.delete(i);
    this.nearObserver?.observe(el);
    this.farObserver?.observe(el);
    const group = el.classList.contains('markdown-group');
    if (group) this.sizeObserver?.observe(el);
    return () => {
      if (this.elements.get(i) === el) this.elements.delete(i);
      this.nearObserver?.unobserve(el);
      this.farObserver?.unobserve(el);
      if (group) this.sizeObserver?.unobserve(el);
    };
  };

  /** Watching where the groups are, once the answer is long enough and is in a log. */
  private start() {
    if (this.detach || !this.container || !canWindow()) return;
    const root = this.container.closest<HTMLElement>('[role="log"]');
    if (!root) {
      // Not in a log: nothing scrolls it out of view, every group is in the page.
      this.setOut(NONE);
      return;
    }
    if (this.container.clientWidth > 0) this.heights.width = this.container.clientWidth;
    // The observers cost the page no layout of their own: nothing is done while the view moves
    // within what is in the page.
    const margin = (screens: number) => `${screens * 100}% 0px`;
    this.nearObserver = new IntersectionObserver((entries) => this.observed(entries, this.near), { root, rootMargin: margin(NEAR_SCREENS) });
    this.farObserver = new IntersectionObserver((entries) => this.observed(entries, this.far), { root, rootMargin: margin(FAR_SCREENS) });
    this.sizeObserver = new ResizeObserver((entries) => this.resized(entries));
    for (const el of this.elements.values()) {
      this.nearObserver.observe(el);
      this.farObserver.observe(el);
      if (el.classList.contains('markdown-group')) this.sizeObserver.observe(el);
    }
    this.keeper.attach(root, this.container);
    const onScroll = () => this.keeper.seen();
    root.addEventListener('scroll', onScroll, { passive: true });
    const unpin = watchPins(this.container, (focus, selection) => {
      this.focus = focus;
      this.selection = selection;
      this.pin();
    });
    this.detach = () => {
      root.removeEventListener('scroll', onScroll);
      unpin();
    };
  }

  private stop() {
    this.nearObserver?.disconnect();
    this.farObserver?.disconnect();
    this.sizeObserver?.disconnect();
    this.nearObserver = null;
    this.farObserver = null;
    this.sizeObserver = null;
    this.detach?.();
    this.detach = null;
    this.keeper.detach();
    this.near.clear();
    this.far.clear();
    this.focus = null;
    this.selection = null;
    this.pinned = NONE;
  }

  private pin() {
    this.pinned = pinnedGroups(this.focus, this.selection, this.heights.count);
    this.update();
  }

  private update() {
    if (!this.windowed) return;
    this.setOut(nextOut(this.out, this.heights.count, this.near, this.far, this.pinned));
  }

  private observed(entries: IntersectionObserverEntry[], into: Map<number, boolean>) {
    for (const entry of entries) {
      const el = entry.target as HTMLElement;
      const i = Number(el.dataset.group);
      // An element gone meanwhile, or a log not laid out (hidden): nothing to go by.
      if (this.elements.get(i) !== el || !entry.rootBounds || entry.rootBounds.height === 0) continue;
      into.set(i, entry.isIntersecting);
    }
    // Laid out and not changed since (a scroll set in a frame's callbacks has had no event yet):
    // where the view is before the groups this puts in or takes out move anything.
    this.keeper.seen();
    this.update();
  }

  /** Groups in the page changed size (text parsed, the window resized): kept, and the view with them. */
  private resized(entries: ResizeObserverEntry[]) {
    const changes: HeightChange[] = [];
    for (const entry of entries) {
      const el = entry.target as HTMLElement;
      const i = Number(el.dataset.group);
      if (this.elements.get(i) !== el) continue;
      const height = entry.borderBoxSize?.[0]?.blockSize ?? el.getBoundingClientRect().height;
      const before = this.heights.measured(i);
      this.heights.record(i, height);
      if (before !== undefined && Math.abs(height - before) >= 0.5) changes.push({ top: el.getBoundingClientRect().top, before, after: height });
    }
    if (changes.length > 0) this.keeper.keepView(changes);
  }

  /**
   * After each render, before the page is painted: the groups just put in are measured (their
   * spacers were as tall as they were thought to be), and with the spacers whose estimate changed,
   * the view kept.
   */
  commit(windowed: boolean, out: ReadonlySet<number>, spacerHeights: Map<number, number>) {
    if (windowed !== this.windowed) {
      this.windowed = windowed;
      if (windowed) this.start();
      else this.stop();
    }
    const before = this.committedOut;
    const heightsBefore = this.spacerHeights;
    this.committedOut = out;
    this.spacerHeights = spacerHeights;
    this.heights.carryOver((i) => !out.has(i) && this.elements.get(i)?.classList.contains('markdown-group') === true);
    if (this.windowed && this.keeper.attached) {
      const changes: HeightChange[] = [];
      for (const i of before) {
        const el = this.elements.get(i);
        const was = heightsBefore.get(i);
        if (!el || was === undefined) continue;
        if (out.has(i)) {
          // Still a spacer, now of another height (the estimates corrected by a group measured).
          const now = spacerHeights.get(i);
          if (now !== undefined && Math.abs(now - was) >= 0.5) changes.push({ top: el.getBoundingClientRect().top, before: was, after: now, blank: true });
          continue;
        }
        // Put in: as tall as it is, not as its spacer was.
        const rect = el.getBoundingClientRect();
        this.heights.record(i, rect.height);
        if (Math.abs(rect.height - was) >= 0.5) changes.push({ top: rect.top, before: was, after: rect.height, blank: true });
      }
      this.keeper.afterChange(changes);
    }
    // The groups may have changed in number; the pins with them.
    if (this.pinned.size > 0) this.pinned = pinnedGroups(this.focus, this.selection, this.heights.count);
    this.update();
  }
}

export interface BlockWindow {
  /** Whether group `i` is in the page (else a spacer stands for it). */
  isIn: (i: number) => boolean;
  /** The height of group `i`'s spacer. */
  spacerHeight: (i: number) => number;
  /** The answer's element's ref. */
  container: (el: HTMLElement | null) => (() => void) | undefined;
  /** Each group's and spacer's ref (the element has `data-group`: the group's index). */
  watch: (el: HTMLElement | null) => (() => void) | undefined;
  /** For each block: called as it is about to draw something else, and once it has (`MarkdownBlock`). */
  blocks: BlockChanges;
}

/** What a block says of its changes (Markdown.tsx): before its render changes the page, and once it has. */
export interface BlockChanges {
  before: () => void;
  after: () => void;
}

/** Which of an answer's groups (each a list of blocks) are in the page. */
export function useBlockWindow(groups: readonly (readonly string[])[]): BlockWindow {
  const [store] = useState(() => new GroupWindow(groups));
  const out = useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot);
  const windowed = canWindow() && groups.length > WINDOW_ABOVE_GROUPS;
  const keys = groups.map(groupKey);
  const textChanged = store.render(groups, keys);
  const shown = windowed ? out : NONE;
  const spacerHeights = new Map<number, number>();
  for (const i of shown) if (i < groups.length) spacerHeights.set(i, store.heightOf(i));
  // Another text, groups put in or taken out, spacers of other heights: the view noted before
  // the page changes.
  if (windowed && (textChanged || store.changesWith(shown, spacerHeights))) store.beforeChange();

  useLayoutEffect(() => {
    store.commit(windowed, shown, spacerHeights);
  });

  const isIn = useCallback((i: number) => !shown.has(i), [shown]);
  const spacerHeight = (i: number) => spacerHeights.get(i) ?? store.heightOf(i);
  return { isIn, spacerHeight, container: store.attachContainer, watch: store.watch, blocks: store.blockChanges };
}
