/**
 * What the person reads kept where it is while a long answer drawn in part (useBlockWindow.ts)
 * changes above it: a spacer replaced by its group taller or shorter than it was thought to be,
 * a block above the view parsed and drawn anew, a group re-wrapped. WebKit has no scroll
 * anchoring (and the log turns Chromium's off: styles.css), so the log is scrolled by as much
 * as what is read moved (`adjustLogScroll`, which tells the log it was not the person).
 *
 * The view is noted before a change (a scroll, the observers, a render about to change the
 * page) and kept once the change is laid out, from that note. A view the log keeps itself (at
 * its end, or following an answer as it streams) is left to it.
 */
import { adjustLogScroll } from '../logScroll';
import { shiftAbove, type HeightChange } from './blockWindow';

/** How long a view noted before a render waits for the render's changes (one not committed is not waited for). */
const NOTED_MS = 200;
/** A view this near the log's bottom is at its end. */
const AT_END_PX = 32;
/** An answer that grew this recently is taken to be streaming. */
const GROWING_MS = 1_000;

/** Where `el` is in the log's content (pixels below its scrolled content's top). */
function contentTop(el: Element, root: HTMLElement): number {
  return el.getBoundingClientRect().top - root.getBoundingClientRect().top + root.scrollTop;
}

export class ViewKeeper {
  private root: HTMLElement | null = null;
  private container: HTMLElement | null = null;
  /** The log's scroll position as last seen (a scroll event) or set here. */
  private lastTop = 0;
  /**
   * The block at the view's top when last seen (in a group in the page: the group, the block's
   * place among the group's elements, where it was in the log's content), kept where it is
   * through the next changes.
   */
  private anchor: { group: number; child: number; block: Element; at: number } | null = null;
  /** When the anchor was noted, the view was the log's to keep (`logKeeps`). */
  private logsView = false;
  /**
   * When the view was noted before a render that changes the page (`beforeChange`): that note
   * stands until the render's changes are laid out (`afterChange`), not replaced by where the
   * view is once they are. Null: none waits.
   */
  private noted: number | null = null;
  /** Changes of this commit, kept together once it is done (`afterChange`). */
  private changes: HeightChange[] = [];
  private keeping = false;
  /** When the answer last grew. */
  private grewAt = Number.NEGATIVE_INFINITY;

  /** `elements`: the element standing for each group now (the group or its spacer), kept by useBlockWindow.ts. */
  constructor(private readonly elements: ReadonlyMap<number, HTMLElement>) {}

  /** Keeping the view of `root` (the log) for the answer in `container`. */
  attach(root: HTMLElement, container: HTMLElement) {
    this.root = root;
    this.container = container;
    this.lastTop = root.scrollTop;
    this.recordAnchor();
  }

  /** Whether it keeps a log's view now. */
  get attached(): boolean {
    return this.root !== null;
  }

  detach() {
    this.root = null;
    this.container = null;
    this.anchor = null;
    this.noted = null;
    this.changes = [];
  }

  /** The answer grew (its text changed): streaming, for a while. */
  grew() {
    this.grewAt = performance.now();
  }

  /** The log scrolled, or the page was laid out without a change of ours: where the view is now. */
  seen() {
    if (!this.root) return;
    this.lastTop = this.root.scrollTop;
    if (!this.waiting()) this.recordAnchor();
  }

  /** Whether a view noted before a render waits for its changes (a render not committed is not waited for long). */
  private waiting(): boolean {
    return this.noted !== null && performance.now() - this.noted < NOTED_MS;
  }

  /**
   * A render is about to change the page (a block drawn anew, groups put in or taken out, spacers
   * of other heights): where the view is, noted while the page is still as it was.
   */
  beforeChange = () => {
    if (!this.root || this.waiting()) return;
    this.recordAnchor();
    this.noted = performance.now();
  };

  /**
   * The render is committed: the view kept, once, after every change of the commit (a microtask,
   * before the page is laid out for painting), from where it was noted before them.
   */
  afterChange = (changes: readonly HeightChange[] = []) => {
    if (!this.root) return;
    this.changes.push(...changes);
    if (this.keeping || (this.noted === null && this.changes.length === 0)) return;
    this.keeping = true;
    queueMicrotask(() => {
      this.keeping = false;
      const all = this.changes;
      this.changes = [];
      this.keepView(all);
    });
  };

  /**
   * Whether the view is the log's to keep: at the log's end (it keeps it there:
   * useVirtualRows.ts), or near the end of this answer while it grows (streaming: the log follows
   * it, ConversationLog.tsx, and the blocks near its end change with every drawing).
   */
  private logKeeps(root: HTMLElement): boolean {
    const bottom = root.scrollTop + root.clientHeight;
    if (bottom >= root.scrollHeight - AT_END_PX) return true;
    const container = this.container;
    if (!container || performance.now() - this.grewAt > GROWING_MS) return false;
    const end = container.getBoundingClientRect().bottom - root.getBoundingClientRect().top + root.scrollTop;
    return bottom >= end - root.clientHeight;
  }

  /**
   * The block at the view's top (`anchor`): in the group in the page there, else the first block
   * below it (the view's top in a gap, a spacer); none when no group of the answer is at or below
   * the view's top, or when the view is the log's to keep (`logKeeps`).
   */
  private recordAnchor() {
    this.anchor = null;
    const root = this.root;
    this.logsView = root !== null && this.logKeeps(root);
    if (!root || this.logsView) return;
    const viewTop = root.getBoundingClientRect().top + root.clientTop;
    let at: [number, HTMLElement] | null = null;
    let below: [number, HTMLElement, number] | null = null;
    for (const [i, el] of this.elements) {
      if (!el.classList.contains('markdown-group')) continue;
      const box = el.getBoundingClientRect();
      if (box.top <= viewTop && box.bottom > viewTop) {
        at = [i, el];
        break;
      }
      if (box.top > viewTop && (below === null || box.top < below[2])) below = [i, el, box.top];
    }
    const [i, group] = at ?? below ?? [];
    if (i === undefined || !group) return;
    const blocks = group.children;
    for (let k = 0; k < blocks.length; k++) {
      const block = blocks[k];
      if (block && block.getBoundingClientRect().bottom > viewTop) {
        this.anchor = { group: i, child: k, block, at: contentTop(block, root) };
        return;
      }
    }
  }

  /**
   * Scrolls the log so that what the person reads stays where it is after `changes` (laid out
   * already). With the view's top in a group in the page: by as far as its block there moved
   * (`anchor`: a block of the group above it parsed, a group above put in). Else (the view's top
   * in a spacer, or in another row): by the changes of the groups above the view's top
   * (`shiftAbove`), unless this answer's row ended above the view before them (then the log's
   * rows keep the view: useVirtualRows.ts).
   *
   * Laid out, content that shrank above a view near the log's end has already moved the view: the
   * browser keeps the scroll position within the shorter content. The view is then kept from
   * where it was (`lastTop`), not from where the browser put it.
   */
  keepView(changes: readonly HeightChange[]) {
    const root = this.root;
    const container = this.container;
    if (!root || !container) return;
    const scrolled = root.scrollTop;
    if (this.logsView) {
      this.lastTop = scrolled;
      this.noted = null;
      this.recordAnchor();
      return;
    }
    const clamped = scrolled < this.lastTop - 0.5 && scrolled >= root.scrollHeight - root.clientHeight - 1;
    const from = clamped ? this.lastTop : scrolled;
    let by = 0;
    const anchor = this.anchor;
    const group = anchor ? this.elements.get(anchor.group) : undefined;
    // The block itself, or what took its place (drawn anew: parsed, grown).
    const block = anchor?.block.isConnected ? anchor.block : anchor && group?.classList.contains('markdown-group') ? group.children[anchor.child] : undefined;
    if (anchor && block) {
      by = contentTop(block, root) - anchor.at;
    } else if (changes.length > 0) {
      // Where everything would be with the view where it was.
      const offset = scrolled - from;
      const viewTop = root.getBoundingClientRect().top + root.clientTop;
      by = shiftAbove(
        changes.map((change) => ({ ...change, top: change.top + offset })),
        viewTop,
      );
      const row = container.closest('[data-row-key]') ?? container;
      let grown = 0;
      for (const change of changes) grown += change.after - change.before;
      // Its row ended above the view before: the row's own change of height is the log's to follow.
      if (row.getBoundingClientRect().bottom + offset - grown <= viewTop) by = 0;
    }
    if (Math.abs(by) >= 0.5) adjustLogScroll(root, by, from);
    this.lastTop = root.scrollTop;
    this.noted = null;
    this.recordAnchor();
  }
}
