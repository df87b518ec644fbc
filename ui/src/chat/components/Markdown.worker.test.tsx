import { act, render } from '@testing-library/react';
import type { Root } from 'hast';
import type { ReactNode } from 'react';
import { I18nextProvider } from 'react-i18next';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createI18n } from '../../i18n';
import { parseMarkdownBlock } from './markdownParse';
import { createMarkdownService, type MarkdownReply, type MarkdownRequest } from './markdownService';

// Markdown.tsx as it runs in a browser: with a `Worker` (the real message handler, run when a
// test says so, its messages cloned both ways as a worker's are). Each test loads the modules
// afresh, so the page's one client starts with this test's worker and an empty cache.

const i18n = createI18n('en');
const wrap = (node: ReactNode) => <I18nextProvider i18n={i18n}>{node}</I18nextProvider>;

let workers: FakeWorker[] = [];
let parse: (text: string, highlight: boolean) => Root = parseMarkdownBlock;

class FakeWorker {
  onmessage: ((event: { data: MarkdownReply[] }) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  onmessageerror: ((event: unknown) => void) | null = null;
  received: MarkdownRequest[] = [];
  private runs: (() => void)[] = [];
  private outbox: MarkdownReply[][] = [];
  private readonly service = createMarkdownService((replies) => this.outbox.push(structuredClone(replies)), {
    parse: (text, highlight) => parse(text, highlight),
    schedule: (run) => this.runs.push(run),
  });

  constructor(
    readonly url: URL,
    readonly options: WorkerOptions,
  ) {
    workers.push(this);
  }

  postMessage(message: MarkdownRequest): void {
    this.received.push(structuredClone(message));
    this.service.receive(structuredClone(message));
  }

  terminate(): void {}

  /** The worker does what it was asked, and the page gets its answers. */
  flush(): void {
    while (this.runs.length > 0 || this.outbox.length > 0) {
      for (const run of this.runs.splice(0)) run();
      for (const data of this.outbox.splice(0)) this.onmessage?.({ data });
    }
  }
}

let client: { deliverHeld(): void } | null = null;

/** Markdown.tsx loaded afresh, with `worker` as the global Worker (null: none). */
async function load(worker: unknown = FakeWorker) {
  vi.resetModules();
  vi.stubGlobal('Worker', worker ?? undefined);
  client = (await import('./markdownClient')).markdownClient();
  return import('./Markdown');
}

/** The worker answers what it was asked; the page takes the answers (`held`: only as its blocks render next). */
function flush(held = false) {
  act(() => {
    for (const worker of workers) worker.flush();
    if (!held) client?.deliverHeld();
  });
}

/** The page a parse in the page gives (no worker). */
async function expected(text: string): Promise<string> {
  const { Markdown } = await load(null);
  const view = render(wrap(<Markdown text={text} />));
  const html = view.container.innerHTML;
  view.unmount();
  return html;
}

const ANSWER = [
  '# Plan',
  'Some **bold** and `code`, a [link](https://example.com) and <b>raw html</b>.',
  '- one\n- two\n  - nested',
  '| a | b |\n| --- | :-: |\n| 1 | 2 |',
  '```js\nconst a = 1;\n\nfunction f() { return a; }\n```',
  '- [ ] task\n- [x] done',
  'Euler: $e^{i\\pi}+1=0$, but $5 is money.',
  'Closing words.',
].join('\n\n');

beforeEach(() => {
  workers = [];
  parse = parseMarkdownBlock;
});

describe('Markdown parsed in a worker', () => {
  it('shows each block’s text until its tree comes, then exactly what a parse in the page shows', async () => {
    const want = await expected(ANSWER);
    const { Markdown } = await load();
    const view = render(wrap(<Markdown text={ANSWER} />));
    expect(workers).toHaveLength(1);
    expect(workers[0]?.options).toEqual({ type: 'module', name: 'markdown' });
    // Nothing parsed on the page: every block is its text as written, for now.
    const pending = [...view.container.querySelectorAll('.markdown-group > *')];
    expect(pending.length).toBe(8);
    expect(pending.every((p) => p.tagName === 'P' && p.className === 'markdown-pending')).toBe(true);
    expect(pending[3]?.textContent).toBe('| a | b |\n| --- | :-: |\n| 1 | 2 |');
    flush();
    expect(view.container.innerHTML).toBe(want);
    expect(view.container.querySelectorAll('pre code .hljs-keyword').length).toBeGreaterThan(0);
    expect(view.container.querySelector('math')).not.toBeNull();
    expect(view.container.querySelector('table')).not.toBeNull();
  });

  it('keeps a block’s last drawing while its new text is parsed, and sends a block that did not change no more', async () => {
    const { Markdown } = await load();
    const first = 'Intro.\n\n## Head\n\nSome *text*';
    const view = render(wrap(<Markdown text={first} />));
    flush();
    const heading = view.container.querySelector('h2');
    const emphasis = view.container.querySelector('em');
    const asked = workers[0]!.received.length;

    view.rerender(wrap(<Markdown text={`${first} and more`} />));
    // Only the grown block was sent, and until its tree comes it shows what it showed.
    expect(workers[0]!.received.slice(asked)).toEqual([{ id: expect.any(Number), seq: expect.any(Number), text: 'Some *text* and more', highlight: true }]);
    expect(view.container.querySelector('.markdown-pending')).toBeNull();
    expect(view.container.querySelector('em')).toBe(emphasis);
    expect(view.container.lastElementChild?.textContent).toContain('Some text');
    expect(view.container.textContent).not.toContain('and more');

    flush();
    expect(view.container.querySelector('h2')).toBe(heading);
    expect(view.container.querySelector('.markdown-group')?.lastElementChild?.textContent).toBe('Some text and more');
    expect(view.container.innerHTML).toBe(await expected(`${first} and more`));
  });

  it('parses only the latest text of a block whose text changed several times while the worker was busy', async () => {
    const parses: string[] = [];
    parse = (text, highlight) => {
      parses.push(text);
      return parseMarkdownBlock(text, highlight);
    };
    const { Markdown } = await load();
    const view = render(wrap(<Markdown text="Start" />));
    flush();
    for (const text of ['Start *a', 'Start *a b', 'Start *a b*']) view.rerender(wrap(<Markdown text={text} />));
    flush();
    expect(parses).toEqual(['Start', 'Start *a b*']);
    expect(view.container.querySelector('em')?.textContent).toBe('a b');
  });

  it('draws an answer that came with the block’s next render, not in a render of its own', async () => {
    const { Markdown } = await load();
    const view = render(wrap(<Markdown text="Some *text*" />));
    flush();
    view.rerender(wrap(<Markdown text="Some *text* and **more" />));
    flush(true);
    // Held: the page still shows the last drawing.
    expect(view.container.textContent).toBe('Some text');
    // The next update (the stream's next drawing) draws it, while asking for its own text.
    view.rerender(wrap(<Markdown text="Some *text* and **more**" />));
    expect(view.container.textContent).toBe('Some text and **more');
    expect(view.container.querySelector('strong')).toBeNull();
    flush();
    expect(view.container.querySelector('strong')?.textContent).toBe('more');
  });

  it('draws an answer reopened from the cache at once, asking the worker nothing', async () => {
    const { Markdown } = await load();
    const first = render(wrap(<Markdown text={ANSWER} />));
    flush();
    const html = first.container.innerHTML;
    first.unmount();
    const asked = workers[0]!.received.length;
    const again = render(wrap(<Markdown text={ANSWER} />));
    expect(again.container.innerHTML).toBe(html);
    expect(workers[0]!.received.length).toBe(asked);
  });

  it('colours a streamed code block once its fence closes, keeping the uncoloured code until then', async () => {
    const { Markdown } = await load();
    const view = render(wrap(<Markdown text={'Intro.\n\n```js\nconst a = 1;\n'} />));
    flush();
    const code = view.container.querySelector('pre code');
    expect(code?.textContent).toBe('const a = 1;\n');
    expect(view.container.querySelectorAll('.hljs-keyword').length).toBe(0);
    view.rerender(wrap(<Markdown text={'Intro.\n\n```js\nconst a = 1;\n```\n'} />));
    expect(view.container.querySelector('pre code')).toBe(code);
    flush();
    expect(view.container.querySelectorAll('pre code .hljs-keyword').length).toBe(1);
    expect(view.getByRole('button', { name: 'Copy code' })).toBeTruthy();
  });

  it('shows a block the worker could not parse as its text, and the others drawn', async () => {
    parse = (text, highlight) => {
      if (text.includes('BOOM')) throw new Error('no luck');
      return parseMarkdownBlock(text, highlight);
    };
    const errors = vi.spyOn(console, 'error');
    const { Markdown } = await load();
    const view = render(wrap(<Markdown text={'# Title\n\nA *BOOM* here\n\n**after**'} />));
    flush();
    expect(view.container.querySelector('h1')?.textContent).toBe('Title');
    expect(view.container.querySelector('strong')?.textContent).toBe('after');
    const plain = view.container.querySelector('.markdown-pending');
    expect(plain?.textContent).toBe('A *BOOM* here');
    expect(errors).not.toHaveBeenCalled();
  });

  it('parses in the page, never leaving an answer blank, when the worker cannot start', async () => {
    const want = await expected(ANSWER);
    const { Markdown } = await load(
      class {
        constructor() {
          throw new DOMException('refused by the policy', 'SecurityError');
        }
      },
    );
    const view = render(wrap(<Markdown text={ANSWER} />));
    expect(view.container.innerHTML).toBe(want);
  });

  it('parses in the page what waited when the worker breaks', async () => {
    const want = await expected(ANSWER);
    const { Markdown } = await load();
    const view = render(wrap(<Markdown text={ANSWER} />));
    expect(view.container.querySelector('.markdown-pending')).not.toBeNull();
    act(() => workers[0]?.onerror?.(new Event('error')));
    expect(view.container.innerHTML).toBe(want);
    // And from then on, at once.
    view.rerender(wrap(<Markdown text={`${ANSWER} more`} />));
    expect(view.container.innerHTML).toBe(await expected(`${ANSWER} more`));
  });
});
