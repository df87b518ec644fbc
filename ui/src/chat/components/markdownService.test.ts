import type { Root } from 'hast';
import { describe, expect, it, vi } from 'vitest';
import { parseMarkdownBlock } from './markdownParse';
import { createMarkdownService, type MarkdownReply, type MarkdownRequest } from './markdownService';

/** The service with its scheduled runs held until `flush`, and what it sent, as the page gets it (cloned). */
function service(
  parse: (text: string, highlight: boolean) => Root = parseMarkdownBlock,
  now?: () => number,
  prepare?: (text: string) => Promise<unknown> | null,
) {
  const sent: MarkdownReply[][] = [];
  let runs: (() => void)[] = [];
  const s = createMarkdownService((replies) => sent.push(structuredClone(replies)), {
    parse,
    schedule: (run) => runs.push(run),
    ...(now ? { now } : {}),
    ...(prepare ? { prepare } : {}),
  });
  const flush = () => {
    while (runs.length > 0) {
      const current = runs;
      runs = [];
      for (const run of current) run();
    }
  };
  return { receive: (message: MarkdownRequest) => s.receive(message), sent, flush, scheduled: () => runs.length };
}

const SAMPLES = [
  '# Title\n\nSome *text* with `code` and a [link](https://example.com).',
  '| a | b |\n| --- | :-: |\n| 1 | 2 |',
  '- [ ] task\n- [x] done',
  '```ts\nconst a: number = 1;\n```',
  'Euler $e^{i\\pi}+1=0$, and $$\\frac{1}{2}$$ — but $5 and $6 are money.',
  '<script>alert(1)</script><img src=x onerror=alert(1)> [x](javascript:alert(1))',
  '你好，**世界**。',
];

describe('the markdown worker’s message handler', () => {
  it('answers with the very tree the page would parse itself, after crossing to the page', () => {
    const s = service();
    SAMPLES.forEach((text, i) => s.receive({ id: i, seq: i + 1, text, highlight: i % 2 === 0 }));
    s.flush();
    const replies = s.sent.flat();
    expect(replies.map((r) => r.id)).toEqual(SAMPLES.map((_, i) => i));
    for (const reply of replies) {
      expect('tree' in reply && reply.tree).toEqual(parseMarkdownBlock(SAMPLES[reply.id] ?? '', reply.id % 2 === 0));
    }
  });

  it('parses a block once, at its latest text, when several requests for it are waiting', () => {
    const parse = vi.fn(parseMarkdownBlock);
    const s = service(parse);
    s.receive({ id: 1, seq: 1, text: 'a', highlight: true });
    s.receive({ id: 2, seq: 2, text: 'other', highlight: true });
    s.receive({ id: 1, seq: 3, text: 'ab', highlight: true });
    s.receive({ id: 1, seq: 4, text: 'abc', highlight: false });
    expect(s.scheduled()).toBe(1);
    s.flush();
    expect(parse.mock.calls).toEqual([
      ['abc', false],
      ['other', true],
    ]);
    expect(s.sent.flat().map((r) => [r.id, r.seq])).toEqual([
      [1, 4],
      [2, 2],
    ]);
  });

  it('keeps the newest request when an older one arrives late', () => {
    const parse = vi.fn(parseMarkdownBlock);
    const s = service(parse);
    s.receive({ id: 1, seq: 5, text: 'new', highlight: true });
    s.receive({ id: 1, seq: 4, text: 'old', highlight: true });
    s.flush();
    expect(parse.mock.calls).toEqual([['new', true]]);
  });

  it('drops a cancelled block’s request', () => {
    const parse = vi.fn(parseMarkdownBlock);
    const s = service(parse);
    s.receive({ id: 1, seq: 1, text: 'gone', highlight: true });
    s.receive({ id: 2, seq: 2, text: 'kept', highlight: true });
    s.receive({ id: 1, cancel: true });
    s.flush();
    expect(parse.mock.calls).toEqual([['kept', true]]);
    expect(s.sent.flat().map((r) => r.id)).toEqual([2]);
  });

  it('parses the other blocks while one waits for its code to load, and that one once it has, at its latest text', async () => {
    let loaded!: () => void;
    const loading = new Promise<void>((resolve) => (loaded = resolve));
    let ready = false;
    const parse = vi.fn(parseMarkdownBlock);
    const s = service(parse, undefined, (text) => (text.includes('$') && !ready ? loading : null));
    s.receive({ id: 1, seq: 1, text: 'Area $x$', highlight: true });
    s.receive({ id: 2, seq: 2, text: 'plain', highlight: true });
    s.flush();
    expect(s.sent.flat().map((r) => r.id)).toEqual([2]);
    // Nothing runs again until the code is there: no run spins while it loads.
    expect(s.scheduled()).toBe(0);
    s.receive({ id: 1, seq: 3, text: 'Area $x^2$', highlight: true });
    s.flush();
    expect(s.sent.flat().map((r) => r.id)).toEqual([2]);
    ready = true;
    loaded();
    await loading;
    await Promise.resolve();
    s.flush();
    expect(s.sent.flat().map((r) => [r.id, r.seq])).toEqual([
      [2, 2],
      [1, 3],
    ]);
    expect(parse.mock.calls.map(([text]) => text)).toEqual(['plain', 'Area $x^2$']);
  });

  it('parses a waiting block when its code fails to load, and not one cancelled meanwhile', async () => {
    let failed!: () => void;
    const loading = new Promise<void>((_resolve, reject) => (failed = () => reject(new Error('offline'))));
    let settled = false;
    const s = service(parseMarkdownBlock, undefined, (text) => (text.includes('$') && !settled ? loading : null));
    s.receive({ id: 1, seq: 1, text: 'Price $5 and $6', highlight: true });
    s.receive({ id: 2, seq: 2, text: 'Cost $x$', highlight: true });
    s.flush();
    s.receive({ id: 2, cancel: true });
    settled = true;
    failed();
    await loading.catch(() => undefined);
    await Promise.resolve();
    s.flush();
    expect(s.sent.flat().map((r) => [r.id, 'tree' in r])).toEqual([[1, true]]);
  });

  it('tells a block its parse failed, and parses the others', () => {
    const s = service((text, highlight) => {
      if (text === 'bad') throw new Error('no luck');
      return parseMarkdownBlock(text, highlight);
    });
    s.receive({ id: 1, seq: 1, text: 'bad', highlight: true });
    s.receive({ id: 2, seq: 2, text: 'good', highlight: true });
    s.flush();
    const [bad, good] = s.sent.flat();
    expect(bad).toEqual({ id: 1, seq: 1, error: 'no luck' });
    expect(good && 'tree' in good).toBe(true);
  });

  it('sends what it parsed in a slice of time together, and reads its messages between slices', () => {
    let clock = 0;
    const s = service(
      (text, highlight) => {
        clock += 3;
        return parseMarkdownBlock(text, highlight);
      },
      () => clock,
    );
    for (let id = 1; id <= 7; id++) s.receive({ id, seq: id, text: `block ${id}`, highlight: true });
    s.flush();
    // 3 ms a parse, 8 ms a slice: three parses a message.
    expect(s.sent.map((replies) => replies.map((r) => r.id))).toEqual([[1, 2, 3], [4, 5, 6], [7]]);
  });

  it('answers each block on its own when a batch cannot be sent', () => {
    const sent: MarkdownReply[][] = [];
    const runs: (() => void)[] = [];
    const s = createMarkdownService(
      (replies) => {
        if (replies.some((r) => 'tree' in r && r.id === 1)) throw new Error('could not be cloned');
        sent.push(replies);
      },
      { parse: parseMarkdownBlock, schedule: (run) => runs.push(run) },
    );
    s.receive({ id: 1, seq: 1, text: 'a', highlight: true });
    s.receive({ id: 2, seq: 2, text: 'b', highlight: true });
    runs.shift()?.();
    expect(sent.flat().map((r) => [r.id, 'tree' in r ? 'tree' : r.error])).toEqual([
      [1, 'could not be cloned'],
      [2, 'tree'],
    ]);
  });
});
