import { afterEach, describe, expect, it, vi } from 'vitest';
import { FIRST_ANSWER_MS, HOLD_MS, Lru, MarkdownClient, type Parsed, type WorkerLike } from './markdownClient';
import { parseMarkdownBlock } from './markdownParse';
import type { MarkdownReply, MarkdownRequest, ParseRequest } from './markdownService';

/** A worker that answers only when told to, with trees parsed the worker's way. */
class FakeWorker implements WorkerLike {
  onmessage: ((event: { data: MarkdownReply[] }) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  onmessageerror: ((event: unknown) => void) | null = null;
  posted: MarkdownRequest[] = [];
  terminated = false;

  postMessage(message: MarkdownRequest): void {
    this.posted.push(message);
  }

  terminate(): void {
    this.terminated = true;
  }

  /** The parse requests posted so far. */
  requests(): ParseRequest[] {
    return this.posted.filter((m): m is ParseRequest => 'text' in m);
  }

  /** Answers `request` (the last one posted by default); the page gets it at once. */
  answer(request = this.requests().at(-1)): void {
    if (!request) throw new Error('nothing was asked');
    this.onmessage?.({ data: [{ id: request.id, seq: request.seq, tree: structuredClone(parseMarkdownBlock(request.text, request.highlight)) }] });
  }
}

function setup(limits?: { entries: number; characters: number }) {
  const worker = new FakeWorker();
  const start = vi.fn(() => worker);
  const client = new MarkdownClient(start, parseMarkdownBlock, limits);
  const delivered: [number, Parsed][] = [];
  const ask = (id: number, text: string, highlight = true) => client.request(id, text, highlight, (parsed) => delivered.push([id, parsed]));
  /** The worker answers, and what it answered is handed over (not waiting for a render). */
  const answer = (request?: ParseRequest) => {
    worker.answer(request);
    client.deliverHeld();
  };
  return { worker, start, client, delivered, ask, answer };
}

function treeOf(parsed: Parsed | undefined) {
  return parsed && 'tree' in parsed ? parsed.tree : undefined;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('MarkdownClient', () => {
  it('asks the worker for a block it does not know, then has it cached: never sent again', () => {
    const { worker, start, client, delivered, ask, answer } = setup();
    expect(client.get('**a**', true)).toBeUndefined();
    expect(start).toHaveBeenCalledTimes(1);
    ask(1, '**a**');
    expect(worker.posted).toEqual([{ id: 1, seq: 1, text: '**a**', highlight: true }]);
    expect(delivered).toEqual([]);
    answer();
    expect(delivered).toHaveLength(1);
    expect(treeOf(delivered[0]?.[1])).toEqual(parseMarkdownBlock('**a**', true));
    expect(client.pending).toBe(0);

    // Known now: drawn from the cache, by this block or another (a message reopened).
    expect(client.has('**a**', true)).toBe(true);
    expect(client.get('**a**', true)).toBe(delivered[0]?.[1]);
    ask(2, '**a**');
    expect(delivered[1]).toEqual([2, delivered[0]?.[1]]);
    expect(worker.posted).toHaveLength(1);
    // The same text unhighlighted is another parse.
    expect(client.has('**a**', false)).toBe(false);
    expect(start).toHaveBeenCalledTimes(1);
  });

  it('drops the answer for a text the block moved on from, and delivers only its latest', () => {
    const { worker, client, delivered, ask, answer } = setup();
    ask(1, 'Hel');
    ask(1, 'Hello');
    const [first, second] = worker.requests();
    answer(first);
    expect(delivered).toEqual([]);
    expect(client.has('Hel', true)).toBe(false);
    answer(second);
    expect(delivered.map(([id, parsed]) => [id, treeOf(parsed)])).toEqual([[1, parseMarkdownBlock('Hello', true)]]);
    // Answered once: a repeated answer is dropped too.
    answer(second);
    expect(delivered).toHaveLength(1);
  });

  it('tells the worker when a block leaves, and drops its answer', () => {
    const { worker, client, delivered, ask, answer } = setup();
    ask(7, 'bye');
    client.cancel(7);
    expect(worker.posted.at(-1)).toEqual({ id: 7, cancel: true });
    answer(worker.requests()[0]);
    expect(delivered).toEqual([]);
    expect(client.has('bye', true)).toBe(false);
    // Nothing to cancel: nothing posted.
    client.cancel(7);
    expect(worker.posted).toHaveLength(2);
  });

  it('delivers a block the worker could not parse as an error (shown as text), the others as trees', () => {
    const { worker, delivered, ask, answer } = setup();
    ask(1, 'bad');
    ask(2, 'good');
    const [bad, good] = worker.requests();
    worker.onmessage?.({ data: [{ id: bad!.id, seq: bad!.seq, error: 'boom' }] });
    answer(good);
    expect(delivered[0]).toEqual([1, { error: 'boom' }]);
    expect(treeOf(delivered[1]?.[1])).toEqual(parseMarkdownBlock('good', true));
  });

  it('parses in the page when the worker breaks: what waited first, then everything', () => {
    const { worker, client, delivered, ask } = setup();
    ask(1, '# one');
    ask(2, '`two`', false);
    worker.onerror?.(new Event('error'));
    expect(worker.terminated).toBe(true);
    expect(delivered.map(([id, parsed]) => [id, treeOf(parsed)])).toEqual([
      [1, parseMarkdownBlock('# one', true)],
      [2, parseMarkdownBlock('`two`', false)],
    ]);
    expect(client.usesWorker).toBe(false);
    expect(treeOf(client.get('*three*', true))).toEqual(parseMarkdownBlock('*three*', true));
    ask(3, '*four*');
    expect(treeOf(delivered.at(-1)?.[1])).toEqual(parseMarkdownBlock('*four*', true));
    expect(worker.requests()).toHaveLength(2);
  });

  it('parses in the page when there is no worker, or it cannot be made', () => {
    const none = new MarkdownClient(() => null);
    expect(treeOf(none.get('*a*', true))).toEqual(parseMarkdownBlock('*a*', true));
    const refused = new MarkdownClient(() => {
      throw new DOMException('refused', 'SecurityError');
    });
    expect(refused.usesWorker).toBe(false);
    const delivered: Parsed[] = [];
    refused.request(1, '*b*', true, (parsed) => delivered.push(parsed));
    expect(treeOf(delivered[0])).toEqual(parseMarkdownBlock('*b*', true));
  });

  it('shows a block as text when even the page cannot parse it', () => {
    const client = new MarkdownClient(
      () => null,
      () => {
        throw new Error('parser bug');
      },
    );
    expect(client.get('x', true)).toEqual({ error: 'parser bug' });
  });

  it('takes a worker that never answers a waiting request for one that does not run', () => {
    vi.useFakeTimers();
    const { worker, client, delivered, ask } = setup();
    // A request cancelled before its answer (a warm-up sample) says nothing about the worker.
    ask(1, 'warm');
    client.cancel(1);
    vi.advanceTimersByTime(FIRST_ANSWER_MS * 2);
    expect(client.usesWorker).toBe(true);
    ask(2, 'waits');
    vi.advanceTimersByTime(FIRST_ANSWER_MS - 1);
    expect(delivered).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(worker.terminated).toBe(true);
    expect(treeOf(delivered[0]?.[1])).toEqual(parseMarkdownBlock('waits', true));
  });

  it('trusts a worker once it has answered, however slow later', () => {
    vi.useFakeTimers();
    const { worker, client, ask, answer } = setup();
    ask(1, 'a');
    answer();
    ask(2, 'b');
    vi.advanceTimersByTime(FIRST_ANSWER_MS * 10);
    expect(client.usesWorker).toBe(true);
    expect(worker.terminated).toBe(false);
  });

  it('holds an answer for its block’s next render, which takes it, or delivers it after a while', () => {
    vi.useFakeTimers();
    const { worker, client, delivered, ask } = setup();
    ask(1, 'One *a');
    ask(2, 'Two');
    worker.answer(worker.requests()[0]);
    worker.answer(worker.requests()[1]);
    const held = client.heldFor(1);
    expect(treeOf(held)).toEqual(parseMarkdownBlock('One *a', true));
    expect(delivered).toEqual([]);
    // Block 1 drew it (its text grew meanwhile, and it asks for the new one): not delivered again.
    client.release(1, held!);
    ask(1, 'One *a*');
    // A release of what is no longer held changes nothing.
    client.release(2, held!);
    vi.advanceTimersByTime(HOLD_MS - 1);
    expect(delivered).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(delivered.map(([id, parsed]) => [id, treeOf(parsed)])).toEqual([[2, parseMarkdownBlock('Two', true)]]);
    expect(client.heldFor(2)).toBeUndefined();
    // A newer answer for a block replaces the one it holds; a block that leaves drops it.
    worker.answer();
    expect(treeOf(client.heldFor(1))).toEqual(parseMarkdownBlock('One *a*', true));
    client.cancel(1);
    expect(client.heldFor(1)).toBeUndefined();
    vi.advanceTimersByTime(HOLD_MS);
    expect(delivered).toHaveLength(1);
  });

  it('holds answers past HOLD_MS while a drawing is on its way, which hands them over; none due, they come on their own', () => {
    vi.useFakeTimers();
    const { worker, client, delivered, ask } = setup();
    let due = true;
    const undo = client.drawnWith(() => due);
    ask(1, '# One');
    worker.answer();
    // A fast stream is drawn every 100 ms: the answer waits for the drawing, however long.
    vi.advanceTimersByTime(HOLD_MS * 5);
    expect(delivered).toEqual([]);
    // The drawing hands it over in its own render.
    client.deliverHeld();
    expect(delivered.map(([id, parsed]) => [id, treeOf(parsed)])).toEqual([[1, parseMarkdownBlock('# One', true)]]);
    // No drawing due (the stream paused or ended): an answer comes after HOLD_MS as before.
    due = false;
    ask(2, 'Two');
    worker.answer();
    vi.advanceTimersByTime(HOLD_MS);
    expect(delivered.map(([id]) => id)).toEqual([1, 2]);
    // A drawing that stops being due (the chat left the page) holds nothing back.
    due = true;
    ask(3, 'Three');
    worker.answer();
    undo();
    vi.advanceTimersByTime(HOLD_MS);
    expect(delivered.map(([id]) => id)).toEqual([1, 2, 3]);
  });

  it('forgets a text on request (a growing block’s earlier text)', () => {
    const { client, ask, answer } = setup();
    ask(1, 'grow');
    answer();
    client.forget('grow', true);
    expect(client.has('grow', true)).toBe(false);
  });

  it('keeps its cache bounded: a block evicted is asked for again', () => {
    const { worker, client, ask, answer } = setup({ entries: 2, characters: 1_000 });
    for (const [id, text] of [
      [1, 'one'],
      [2, 'two'],
      [3, 'three'],
    ] as const) {
      ask(id, text);
      answer();
    }
    expect(['one', 'two', 'three'].map((t) => client.has(t, true))).toEqual([false, true, true]);
    ask(4, 'one');
    expect(worker.requests().at(-1)).toMatchObject({ id: 4, text: 'one' });
  });
});

describe('Lru', () => {
  it('evicts the least recently used first, by count', () => {
    const lru = new Lru<number>(3, 100);
    lru.set('a', 1, 1);
    lru.set('b', 2, 1);
    lru.set('c', 3, 1);
    expect(lru.get('a')).toBe(1); // a is now the most recent
    lru.set('d', 4, 1);
    expect([lru.has('a'), lru.has('b'), lru.has('c'), lru.has('d')]).toEqual([true, false, true, true]);
    expect(lru.size).toBe(3);
  });

  it('evicts by total weight, keeps the newest entry even when it alone is over, and counts replaced entries once', () => {
    const lru = new Lru<string>(10, 10);
    lru.set('a', 'a', 4);
    lru.set('b', 'b', 4);
    lru.set('b', 'b2', 5);
    expect(lru.weight).toBe(9);
    lru.set('c', 'c', 3);
    expect([lru.has('a'), lru.has('b'), lru.has('c')]).toEqual([false, true, true]);
    expect(lru.weight).toBe(8);
    lru.set('huge', 'h', 50);
    expect(lru.size).toBe(1);
    expect(lru.get('huge')).toBe('h');
    lru.delete('huge');
    expect([lru.size, lru.weight]).toEqual([0, 0]);
  });
});
