/**
 * The page's side of Markdown parsing: blocks are parsed by the markdown worker
 * (markdownWorker.ts, protocol in markdownService.ts), so a streamed answer's parses do not take
 * the page's thread, and their trees are kept in a bounded cache, so a block that did not change
 * is never sent again and a message reopened is drawn at once. Where no worker can run (no
 * `Worker`, it fails to start, it breaks) the page parses with the very same function itself.
 */
import type { Root } from 'hast';
import { parseMarkdownBlock } from './markdownParse';
import type { MarkdownReply, MarkdownRequest } from './markdownService';
import { takeMarkdownWorker } from './markdownWorkerStart';

/** A block's parse: its tree, or why it has none (then the block shows as plain text). */
export type Parsed = { tree: Root } | { error: string };

/** The little of a `Worker` used here. */
export interface WorkerLike {
  postMessage(message: MarkdownRequest): void;
  terminate(): void;
  onmessage: ((event: { data: MarkdownReply[] }) => void) | null;
  onerror: ((event: unknown) => void) | null;
  onmessageerror: ((event: unknown) => void) | null;
}

/**
 * Least recently used first out, bounded by entries and by their total weight (the characters
 * parsed, which the size of a tree follows). The newest entry is always kept.
 */
export class Lru<V> {
  private readonly entries = new Map<string, { value: V; weight: number }>();
  private total = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxWeight: number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get weight(): number {
    return this.total;
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  /** The value, now the most recently used. */
  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V, weight: number): void {
    this.delete(key);
    this.entries.set(key, { value, weight });
    this.total += weight;
    while (this.entries.size > 1 && (this.entries.size > this.maxEntries || this.total > this.maxWeight)) {
      const oldest = this.entries.keys().next().value as string;
      this.delete(oldest);
    }
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.total -= entry.weight;
  }
}

interface Waiting {
  seq: number;
  key: string;
  text: string;
  highlight: boolean;
  deliver: (parsed: Parsed) => void;
}

/** A few long conversations' worth: a 20k-token answer is ~100k characters in ~1,000 blocks. */
const MAX_ENTRIES = 4_000;
const MAX_CHARACTERS = 1_000_000;
/**
 * A worker that has not answered at all while a request waited that long is taken for one that
 * cannot run (one that fails to load says so at once, with an error event). Starting and a first
 * parse take well under a second even on a busy machine; the answer shows as text meanwhile.
 */
export const FIRST_ANSWER_MS = 4_000;
/**
 * How long an answer waits for its block's next render (the next drawing of a streamed answer,
 * every 25–100 ms: chat/drawPacer.ts) before it is delivered on its own, unless a drawing is on
 * its way (`drawnWith`): then it waits for that drawing, which delivers it. Drawn with the rest
 * of the update, the block costs the page no render, layout and paint of its own.
 */
export const HOLD_MS = 50;

function keyOf(text: string, highlight: boolean): string {
  return (highlight ? 'h' : 'p') + text;
}

export class MarkdownClient {
  private readonly cache: Lru<Parsed>;
  /** Each block's request in flight: only its latest, the others' answers are dropped. */
  private readonly waiting = new Map<number, Waiting>();
  private worker: WorkerLike | null = null;
  private mode: 'unstarted' | 'worker' | 'here' = 'unstarted';
  private seq = 0;
  private heard = false;
  private watchdog: ReturnType<typeof setTimeout> | null = null;
  /** Answers not handed to their block yet: its next render takes them, or `HOLD_MS` after they came, `deliver`. */
  private readonly held = new Map<number, { parsed: Parsed; deliver: (parsed: Parsed) => void }>();
  private holdTimer: ReturnType<typeof setTimeout> | null = null;
  /** Whether a drawing that delivers what is held is on its way (`drawnWith`). */
  private drawingDue: () => boolean = () => false;

  constructor(
    private readonly start: () => WorkerLike | null,
    private readonly parse: (text: string, highlight: boolean) => Root = parseMarkdownBlock,
    limits: { entries: number; characters: number } = { entries: MAX_ENTRIES, characters: MAX_CHARACTERS },
  ) {
    this.cache = new Lru(limits.entries, limits.characters);
  }

  /** Whether blocks are parsed in a worker, starting it if need be (false once it failed, or where there is none). */
  get usesWorker(): boolean {
    return this.ensureWorker() !== null;
  }

  /** Requests sent and not answered yet. */
  get pending(): number {
    return this.waiting.size;
  }

  /** Whether the parse of `text` is cached (without making it the most recently used). */
  has(text: string, highlight: boolean): boolean {
    return this.cache.has(keyOf(text, highlight));
  }

  /**
   * The parse of `text` if it is known, or, with no worker, made now; undefined when it is to be
   * asked for (`request`).
   */
  get(text: string, highlight: boolean): Parsed | undefined {
    const hit = this.cache.get(keyOf(text, highlight));
    if (hit) return hit;
    return this.ensureWorker() ? undefined : this.parseHere(text, highlight);
  }

  /**
   * Parses `text` for block `id` and hands the result to the block, once, unless it asks for
   * another text (or `cancel`s) first: then this answer is dropped. The answer is held for the
   * block's next render (`heldFor`, then `release`), or after `HOLD_MS` given to `deliver`.
   */
  request(id: number, text: string, highlight: boolean, deliver: (parsed: Parsed) => void): void {
    const key = keyOf(text, highlight);
    const hit = this.cache.get(key);
    const worker = hit ? null : this.ensureWorker();
    if (!worker) {
      this.cancel(id);
      deliver(hit ?? this.parseHere(text, highlight));
      return;
    }
    const seq = ++this.seq;
    this.waiting.set(id, { seq, key, text, highlight, deliver });
    worker.postMessage({ id, seq, text, highlight });
    if (!this.heard) this.watchdog ??= setTimeout(() => this.fail(), FIRST_ANSWER_MS);
  }

  /**
   * The answer that came for block `id` and has not been handed over: the parse of the latest text
   * it asked for (which may since have grown).
   */
  heldFor(id: number): Parsed | undefined {
    return this.held.get(id)?.parsed;
  }

  /** Block `id` has drawn `parsed`: it need not be delivered. */
  release(id: number, parsed: Parsed): void {
    if (this.held.get(id)?.parsed === parsed) this.held.delete(id);
  }

  /**
   * While `due()` says a drawing of the chat is on its way, answers held wait for it rather than
   * `HOLD_MS`; the drawing hands them over (`deliverHeld`) in its own render. A fast stream is
   * drawn every 100 ms: a parse delivered on its own between two drawings was a render, a layout
   * and a paint of its own, ~15 % of the page's busy time (`make figures`). Returns the undo.
   */
  drawnWith(due: () => boolean): () => void {
    this.drawingDue = due;
    return () => {
      if (this.drawingDue === due) this.drawingDue = () => false;
    };
  }

  /** Hands every answer held to its block now. */
  deliverHeld(): void {
    if (this.holdTimer !== null) clearTimeout(this.holdTimer);
    this.holdTimer = null;
    const held = [...this.held.values()];
    this.held.clear();
    for (const { parsed, deliver } of held) deliver(parsed);
  }

  /** Block `id` wants nothing any more (it left the page, or its text is known). */
  cancel(id: number): void {
    this.held.delete(id);
    if (!this.waiting.delete(id)) return;
    this.worker?.postMessage({ id, cancel: true });
    // Only a request left waiting that long says the worker does not run.
    if (this.waiting.size === 0) this.clearWatchdog();
  }

  /** Drops the parse of a text that will not be shown again (a growing block's earlier text). */
  forget(text: string, highlight: boolean): void {
    this.cache.delete(keyOf(text, highlight));
  }

  private ensureWorker(): WorkerLike | null {
    if (this.mode === 'worker') return this.worker;
    if (this.mode === 'here') return null;
    let worker: WorkerLike | null = null;
    try {
      worker = this.start();
    } catch {
      worker = null;
    }
    if (!worker) {
      this.mode = 'here';
      return null;
    }
    worker.onmessage = (event) => this.receive(event.data);
    worker.onerror = () => this.fail();
    worker.onmessageerror = () => this.fail();
    this.worker = worker;
    this.mode = 'worker';
    return worker;
  }

  private receive(replies: MarkdownReply[]): void {
    this.heard = true;
    this.clearWatchdog();
    for (const reply of replies) {
      const waiting = this.waiting.get(reply.id);
      if (!waiting || waiting.seq !== reply.seq) continue; // superseded, or the block is gone
      this.waiting.delete(reply.id);
      const parsed: Parsed = 'tree' in reply ? { tree: reply.tree } : { error: reply.error };
      this.cache.set(waiting.key, parsed, waiting.text.length);
      this.held.set(reply.id, { parsed, deliver: waiting.deliver });
    }
    if (this.held.size > 0) this.holdTimer ??= setTimeout(() => this.holdEnded(), HOLD_MS);
  }

  private holdEnded(): void {
    this.holdTimer = null;
    if (this.held.size === 0) return;
    if (this.drawingDue()) this.holdTimer = setTimeout(() => this.holdEnded(), HOLD_MS);
    else this.deliverHeld();
  }

  /** The worker could not start or broke: the page parses from now on, what waits first. */
  private fail(): void {
    if (this.mode !== 'worker') return;
    this.mode = 'here';
    this.clearWatchdog();
    this.worker?.terminate();
    this.worker = null;
    this.deliverHeld();
    const waiting = [...this.waiting.values()];
    this.waiting.clear();
    for (const w of waiting) w.deliver(this.parseHere(w.text, w.highlight));
  }

  private clearWatchdog(): void {
    if (this.watchdog !== null) clearTimeout(this.watchdog);
    this.watchdog = null;
  }

  private parseHere(text: string, highlight: boolean): Parsed {
    let parsed: Parsed;
    try {
      parsed = { tree: this.parse(text, highlight) };
    } catch (error) {
      parsed = { error: error instanceof Error ? error.message : String(error) };
    }
    this.cache.set(keyOf(text, highlight), parsed, text.length);
    return parsed;
  }
}

function startWorker(): WorkerLike | null {
  return takeMarkdownWorker() as unknown as WorkerLike | null;
}

let shared: MarkdownClient | null = null;

/** The page's one client (and worker), made on first use. */
export function markdownClient(): MarkdownClient {
  shared ??= new MarkdownClient(startWorker);
  return shared;
}
