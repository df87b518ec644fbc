import { act, render } from '@testing-library/react';
import type { ReactNode } from 'react';
import { I18nextProvider } from 'react-i18next';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createI18n } from '../../i18n';
import { LOG_ADJUST_EVENT } from '../logScroll';
import { parseMarkdownBlock } from './markdownParse';
import { createMarkdownService, type MarkdownReply, type MarkdownRequest } from './markdownService';

// A long answer drawn in part (useBlockWindow.ts), in jsdom: its IntersectionObservers and
// ResizeObserver are fakes the tests speak for (where the view is, how tall a group is), and its
// worker a fake running the real parser when told to. Each test loads the modules afresh.

const i18n = createI18n('en');
const wrap = (node: ReactNode) => <I18nextProvider i18n={i18n}>{node}</I18nextProvider>;

class FakeIntersectionObserver {
  static all: FakeIntersectionObserver[] = [];
  readonly targets = new Set<Element>();
  constructor(
    readonly callback: IntersectionObserverCallback,
    readonly options: IntersectionObserverInit = {},
  ) {
    FakeIntersectionObserver.all.push(this);
  }
  observe(el: Element) {
    this.targets.add(el);
  }
  unobserve(el: Element) {
    this.targets.delete(el);
  }
  disconnect() {
    this.targets.clear();
  }
  takeRecords() {
    return [];
  }
}

class FakeResizeObserver {
  static all: FakeResizeObserver[] = [];
  readonly targets = new Set<Element>();
  constructor(readonly callback: ResizeObserverCallback) {
    FakeResizeObserver.all.push(this);
  }
  observe(el: Element) {
    this.targets.add(el);
  }
  unobserve(el: Element) {
    this.targets.delete(el);
  }
  disconnect() {
    this.targets.clear();
  }
}

class FakeWorker {
  static all: FakeWorker[] = [];
  onmessage: ((event: { data: MarkdownReply[] }) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  onmessageerror: ((event: unknown) => void) | null = null;
  received: MarkdownRequest[] = [];
  private runs: (() => void)[] = [];
  private outbox: MarkdownReply[][] = [];
  private readonly service = createMarkdownService((replies) => this.outbox.push(structuredClone(replies)), {
    parse: parseMarkdownBlock,
    schedule: (run) => this.runs.push(run),
  });
  constructor() {
    FakeWorker.all.push(this);
  }
  postMessage(message: MarkdownRequest) {
    this.received.push(structuredClone(message));
    this.service.receive(structuredClone(message));
  }
  terminate() {}
  flush() {
    while (this.runs.length > 0 || this.outbox.length > 0) {
      for (const run of this.runs.splice(0)) run();
      for (const data of this.outbox.splice(0)) this.onmessage?.({ data });
    }
  }
}

/** Runs `fn` as React does an event, and what it left to the microtasks (the view kept after a commit). */
async function settle(fn: () => void) {
  await act(async () => {
    fn();
    await Promise.resolve();
  });
}

/** The observer reaching `screens` views around the log's. */
function observer(screens: number): FakeIntersectionObserver {
  const found = FakeIntersectionObserver.all.filter((o) => o.options.rootMargin === `${screens * 100}% 0px`).at(-1);
  if (!found) throw new Error(`no observer of ${screens} screens`);
  return found;
}

/** The observer reaching `screens` views around the log's says `el` is within it or not. */
async function see(screens: number, el: Element, within: boolean) {
  const o = observer(screens);
  expect(o.targets.has(el)).toBe(true);
  const entry = { target: el, isIntersecting: within, rootBounds: { height: 600 } } as unknown as IntersectionObserverEntry;
  // Async: what waits for the commit's microtask (the view kept) is done too.
  await settle(() => o.callback([entry], o as unknown as IntersectionObserver));
}

/** `el` (a group in the page) is measured `height` pixels tall. */
async function resize(el: Element, height: number) {
  const o = FakeResizeObserver.all.at(-1);
  expect(o?.targets.has(el)).toBe(true);
  const entry = { target: el, borderBoxSize: [{ blockSize: height, inlineSize: 700 }] } as unknown as ResizeObserverEntry;
  await settle(() => o?.callback([entry], o));
}

/** A paragraph per block, each with a link: 200 blocks, 7 groups of 32 (the last of 8). */
const LONG = Array.from({ length: 200 }, (_, i) => `Paragraph ${i} with a [link ${i}](https://example.com/${i}).`).join('\n\n');

let client: { deliverHeld(): void } | null = null;

async function load() {
  vi.resetModules();
  vi.stubGlobal('IntersectionObserver', FakeIntersectionObserver);
  vi.stubGlobal('ResizeObserver', FakeResizeObserver);
  vi.stubGlobal('Worker', FakeWorker);
  client = (await import('./markdownClient')).markdownClient();
  return import('./Markdown');
}

async function flush() {
  await settle(() => {
    for (const worker of FakeWorker.all) worker.flush();
    client?.deliverHeld();
  });
}

const groupsIn = (root: ParentNode) => [...root.querySelectorAll<HTMLElement>('.markdown-group')].map((g) => Number(g.dataset.group));
const spacers = (root: ParentNode) => [...root.querySelectorAll<HTMLElement>('.markdown-spacer')];
const groupEl = (root: ParentNode, i: number) => root.querySelector<HTMLElement>(`[data-group="${i}"]`) as HTMLElement;

beforeEach(() => {
  FakeIntersectionObserver.all = [];
  FakeResizeObserver.all = [];
  FakeWorker.all = [];
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('a long answer drawn in part', () => {
  it('puts the groups near the view in the page, spacers for the others, and the end first', async () => {
    const { Markdown } = await load();
    const view = render(wrap(<div role="log">{<Markdown text={LONG} />}</div>));
    await flush();
    // Before the view is known, the end: two views of it (jsdom's window is 768 px high).
    expect(groupsIn(view.container)).toEqual([4, 5, 6]);
    const gaps = spacers(view.container);
    expect(gaps.map((s) => Number(s.dataset.group))).toEqual([0, 1, 2, 3]);
    for (const s of gaps) {
      expect(s).toHaveAttribute('aria-hidden', 'true');
      expect(Number.parseFloat(s.style.height)).toBeGreaterThan(500);
    }
    expect(view.container.textContent).toContain('Paragraph 199 with a link 199.');
    expect(view.container.textContent).not.toContain('Paragraph 0 ');
    // The view at the top: the first group comes in, with its text; the last ones go.
    await see(1, groupEl(view.container, 0), true);
    await see(2, groupEl(view.container, 5), false);
    await see(2, groupEl(view.container, 6), false);
    await flush();
    expect(groupsIn(view.container)).toEqual([0, 4]);
    expect(view.container.querySelector('[data-group="0"] a')).toHaveTextContent('link 0');
    expect(view.container.textContent).toContain('Paragraph 0 with a link 0.');
    expect(view.container.textContent).not.toContain('Paragraph 199 ');
  });

  it('gives a group out of the page the height it was drawn at, and draws it again from the parse cache', async () => {
    const { Markdown } = await load();
    const view = render(wrap(<div role="log">{<Markdown text={LONG} />}</div>));
    await flush();
    const parses = () => FakeWorker.all.reduce((n, w) => n + w.received.filter((m) => !('cancel' in m)).length, 0);
    const last = groupEl(view.container, 6);
    await resize(last, 432);
    expect(last.querySelector('.markdown-pending')).toBeNull();
    const before = parses();
    await see(2, last, false);
    const spacer = groupEl(view.container, 6);
    expect(spacer).toHaveClass('markdown-spacer');
    expect(spacer.style.height).toBe('432px');
    await see(1, spacer, true);
    // At once, parsed: the worker was asked nothing.
    const back = groupEl(view.container, 6);
    expect(back).toHaveClass('markdown-group');
    expect(back.querySelectorAll('p')).toHaveLength(8);
    expect(back.querySelector('.markdown-pending')).toBeNull();
    expect(parses()).toBe(before);
  });

  it('keeps the group holding the focus in the page, and its neighbours, until the focus goes', async () => {
    const { Markdown } = await load();
    const view = render(wrap(<div role="log">{<Markdown text={LONG} />}</div>));
    await flush();
    const link = groupEl(view.container, 5).querySelector('a') as HTMLAnchorElement;
    await settle(() => link.focus());
    expect(document.activeElement).toBe(link);
    for (const i of [4, 5, 6]) await see(2, groupEl(view.container, i), false);
    expect(groupsIn(view.container)).toEqual([4, 5, 6]);
    expect(document.activeElement).toBe(link);
    // Tab on: the next group's link (its neighbour, in the page); the one before goes.
    const next = groupEl(view.container, 6).querySelector('a') as HTMLAnchorElement;
    await settle(() => next.focus());
    expect(groupsIn(view.container)).toEqual([5, 6]);
    await act(async () => {
      next.blur();
      await new Promise((resolve) => setTimeout(resolve, 1));
    });
    expect(groupsIn(view.container)).toEqual([]);
  });

  it('keeps the groups a selection reaches in the page, so what was selected can still be copied', async () => {
    const { Markdown } = await load();
    const view = render(wrap(<div role="log">{<Markdown text={LONG} />}</div>));
    await flush();
    // From a paragraph of group 4 to one of group 6, across group 5.
    const from = groupEl(view.container, 4).querySelector('p') as HTMLElement;
    const to = [...groupEl(view.container, 6).querySelectorAll('p')].at(-1) as HTMLElement;
    const range = document.createRange();
    range.setStart(from.firstChild as Node, 0);
    range.setEnd(to.lastChild as Node, 1);
    await settle(() => {
      document.getSelection()?.removeAllRanges();
      document.getSelection()?.addRange(range);
      document.dispatchEvent(new Event('selectionchange'));
    });
    const selected = document.getSelection()?.toString() ?? '';
    expect(selected).toContain('Paragraph 128 with a link 128.');
    expect(selected).toContain('Paragraph 160 with a link 160.');
    expect(selected).toContain('Paragraph 199 with a link 199.');
    // The view goes far from all three (the person scrolled away to press Copy elsewhere): they stay.
    for (const i of [4, 5, 6]) await see(2, groupEl(view.container, i), false);
    expect(groupsIn(view.container)).toEqual([4, 5, 6]);
    expect(document.getSelection()?.toString()).toBe(selected);
    // The selection gone, so are they.
    await settle(() => {
      document.getSelection()?.removeAllRanges();
      document.dispatchEvent(new Event('selectionchange'));
    });
    expect(groupsIn(view.container)).toEqual([]);
  });

  it('keeps the answer from a selection\'s end in it to its own end, when the selection reaches out of it', async () => {
    const { Markdown } = await load();
    const view = render(
      wrap(
        <div role="log">
          <Markdown text={LONG} />
          <p>The next message.</p>
        </div>,
      ),
    );
    await flush();
    const from = groupEl(view.container, 5).querySelector('p') as HTMLElement;
    const after = [...view.container.querySelectorAll('p')].at(-1) as HTMLElement;
    await settle(() => {
      document.getSelection()?.setBaseAndExtent(from.firstChild as Node, 0, after.firstChild as Node, 4);
      document.dispatchEvent(new Event('selectionchange'));
    });
    for (const i of [4, 5, 6]) await see(2, groupEl(view.container, i), false);
    expect(groupsIn(view.container)).toEqual([5, 6]);
    expect(document.getSelection()?.toString()).toMatch(/^Paragraph 160 [^]*Paragraph 199 with a link 199\.[^]*The/);
    await settle(() => {
      document.getSelection()?.removeAllRanges();
      document.dispatchEvent(new Event('selectionchange'));
    });
  });

  /** Rects by element, for a test: `place(el)` gives an element's top and height (viewport pixels), else below the view. */
  function layout(place: (el: HTMLElement) => [number, number] | null) {
    vi.spyOn(Element.prototype, 'getBoundingClientRect').mockImplementation(function (this: Element) {
      const [top, height] = place(this as HTMLElement) ?? [5_000, 600];
      return { top, bottom: top + height, height, left: 0, right: 700, width: 700, x: 0, y: top, toJSON: () => ({}) };
    });
  }

  /** The log's scroll position, as the test sets it, and the scrolls the page made to keep the view. */
  function scrolled(container: HTMLElement, top: number) {
    const log = container.querySelector('[role="log"]') as HTMLElement;
    const state = { top, adjusted: [] as number[] };
    Object.defineProperty(log, 'scrollTop', { get: () => state.top, set: (v: number) => (state.top = v), configurable: true });
    // A view far from the log's end.
    Object.defineProperty(log, 'clientHeight', { value: 600, configurable: true });
    Object.defineProperty(log, 'scrollHeight', { value: 100_000, configurable: true });
    log.addEventListener(LOG_ADJUST_EVENT, (event) => state.adjusted.push((event as CustomEvent<number>).detail));
    return state;
  }

  it('keeps the view where it is when a group above it comes in taller than its spacer', async () => {
    const { Markdown } = await load();
    const view = render(wrap(<div role="log">{<Markdown text={LONG} />}</div>));
    await flush();
    const scroll = scrolled(view.container, 20_000);
    const estimated = Number.parseFloat(groupEl(view.container, 0).style.height);
    // The view's top at the viewport's top; group 0 far above it, `drawn` px tall once drawn; the
    // answer reaching below the view, the groups in the page below its top, moved by group 0.
    let drawn = 1_500;
    const zero = () => {
      const el = groupEl(view.container, 0);
      return el.classList.contains('markdown-group') ? drawn : Number.parseFloat(el.style.height);
    };
    layout((el) => {
      if (el.getAttribute('role') === 'log') return [0, 600];
      if (el.dataset.group === '0') return [-9_000, zero()];
      if (el.classList.contains('markdown')) return [-9_000, 30_000];
      return [300 + zero() - estimated - scroll.top + 20_000, 30];
    });
    await see(1, groupEl(view.container, 0), true);
    expect(groupEl(view.container, 0)).toHaveClass('markdown-group');
    expect(scroll.top).toBe(20_000 + 1_500 - estimated);
    expect(scroll.adjusted).toEqual([1_500 - estimated]);
    // It grows again in the page (a block's parse came): the view moves with it.
    drawn = 1_600;
    await resize(groupEl(view.container, 0), 1_600);
    expect(scroll.top).toBe(20_000 + 1_600 - estimated);
  });

  it('leaves a view at the log\'s end to the log (it keeps it there, or follows the answer)', async () => {
    const { Markdown } = await load();
    const view = render(wrap(<div role="log">{<Markdown text={LONG} />}</div>));
    await flush();
    const scroll = scrolled(view.container, 20_000);
    const log = view.container.querySelector('[role="log"]') as HTMLElement;
    Object.defineProperty(log, 'scrollHeight', { value: 20_600, configurable: true });
    layout((el) => {
      if (el.getAttribute('role') === 'log') return [0, 600];
      if (el.dataset.group === '0') return [-9_000, el.classList.contains('markdown-group') ? 1_500 : Number.parseFloat(el.style.height)];
      if (el.classList.contains('markdown')) return [-9_000, 9_600];
      return null;
    });
    await see(1, groupEl(view.container, 0), true);
    expect(groupEl(view.container, 0)).toHaveClass('markdown-group');
    expect(scroll.top).toBe(20_000);
    expect(scroll.adjusted).toEqual([]);
  });

  it('keeps the block at the view\'s top where it is when blocks above it in its group change height', async () => {
    const { Markdown } = await load();
    const view = render(wrap(<div role="log">{<Markdown text={LONG} />}</div>));
    await flush();
    const scroll = scrolled(view.container, 20_000);
    const group = groupEl(view.container, 5);
    const blocks = [...group.children] as HTMLElement[];
    // Group 5 reaches across the view's top, its blocks 30 px each: the 11th is at the top.
    let grown = 0;
    layout((el) => {
      if (el.getAttribute('role') === 'log') return [0, 600];
      if (el === group) return [-300, 960 + grown];
      const k = blocks.indexOf(el);
      // Blocks above the 11th grew by `grown` (parsed); those from it on moved down by as much.
      if (k >= 0) return [-300 + k * 30 + (k >= 10 ? grown : 0), 30];
      return null;
    });
    // Measured as it came in; where the view is, seen (a scroll).
    await resize(group, 960);
    await settle(() => {
      view.container.querySelector('[role="log"]')?.dispatchEvent(new Event('scroll'));
    });
    grown = 120;
    await resize(group, 960 + grown);
    expect(scroll.adjusted).toEqual([120]);
    expect(scroll.top).toBe(20_120);
    // Nothing moved since: nothing to do.
    await resize(group, 960 + grown + 0.2);
    expect(scroll.adjusted).toEqual([120]);
  });

  it('draws a short answer whole, and a long one outside a log', async () => {
    const { Markdown } = await load();
    const short = LONG.split('\n\n').slice(0, 96).join('\n\n');
    const a = render(wrap(<div role="log">{<Markdown text={short} />}</div>));
    expect(groupsIn(a.container)).toEqual([0, 1, 2]);
    expect(FakeIntersectionObserver.all).toHaveLength(0);
    const b = render(wrap(<Markdown text={LONG} />));
    expect(groupsIn(b.container)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(spacers(b.container)).toHaveLength(0);
  });

  it('windows an answer that grows long as it streams, taking out what the view left', async () => {
    const { Markdown } = await load();
    const blocks = LONG.split('\n\n');
    const view = render(wrap(<div role="log">{<Markdown text={blocks.slice(0, 40).join('\n\n')} />}</div>));
    for (let n = 41; n <= 200; n += 7) view.rerender(wrap(<div role="log">{<Markdown text={blocks.slice(0, n).join('\n\n')} />}</div>));
    view.rerender(wrap(<div role="log">{<Markdown text={LONG} />}</div>));
    await flush();
    // Everything drawn as it came, until the view is known to have left it.
    expect(groupsIn(view.container)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    for (const i of [0, 1, 2, 3]) await see(2, groupEl(view.container, i), false);
    expect(groupsIn(view.container)).toEqual([4, 5, 6]);
    expect(view.container.textContent).toContain('Paragraph 199 with a link 199.');
  });
});
