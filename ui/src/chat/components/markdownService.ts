/**
 * The markdown worker's protocol and its message handling (markdownWorker.ts wires it to the
 * worker's global scope; tests drive it directly).
 *
 * The page asks for one block at a time: `{ id, seq, text, highlight }`, `id` naming the block
 * (one per block on the page, whatever its text), `seq` this request (increasing). A newer
 * request for a block replaces one still queued for it, and `{ id, cancel: true }` drops it (the
 * block left the page). The worker answers with a list of replies, `{ id, seq, tree }` (the hast
 * of parseMarkdownBlock, plain data) or `{ id, seq, error }`, as many as it parsed in one slice
 * of time, so that the page draws a reopened answer's blocks in a few renders, not one each.
 * A block that needs code not loaded yet (`prepare`: math, in the worker) waits for it while the
 * others are parsed.
 */
import type { Root } from 'hast';

export interface ParseRequest {
  id: number;
  seq: number;
  text: string;
  highlight: boolean;
}

export interface CancelRequest {
  id: number;
  cancel: true;
}

export type MarkdownRequest = ParseRequest | CancelRequest;

export type MarkdownReply = { id: number; seq: number; tree: Root } | { id: number; seq: number; error: string };

/** How long the worker parses before it sends what it has and reads its messages again. */
const SLICE_MS = 8;

/** How the service parses and keeps time; tests hand in their own. */
export interface ServiceOptions {
  parse: (text: string, highlight: boolean) => Root;
  /** Runs `run` once the messages already waiting have been read (a zero timeout in the worker). */
  schedule?: (run: () => void) => void;
  now?: () => number;
  /** A promise when `text` needs code loaded before it is parsed (settled: parse it then); else null. */
  prepare?: (text: string) => Promise<unknown> | null;
}

/**
 * The worker's side: `receive` each message from the page; replies go to `send`. Requests are
 * queued per block and parsed after the messages already waiting have been read (`schedule`), so
 * a block whose text changed several times while the worker was busy is parsed once, at its
 * latest text.
 */
export function createMarkdownService(send: (replies: MarkdownReply[]) => void, options: ServiceOptions): { receive(message: MarkdownRequest): void } {
  const { parse, schedule = (run) => setTimeout(run, 0), now = () => performance.now(), prepare = () => null } = options;
  /** The latest request of each block, oldest block first. */
  const queued = new Map<number, ParseRequest>();
  /** Blocks whose code is loading: parsed when it has (or has failed to). */
  const preparing = new Set<number>();
  let scheduled = false;

  const run = () => {
    scheduled = false;
    const replies: MarkdownReply[] = [];
    const started = now();
    for (const [id, request] of queued) {
      if (preparing.has(id)) continue;
      const loading = prepare(request.text);
      if (loading) {
        preparing.add(id);
        const ready = () => {
          preparing.delete(id);
          wake();
        };
        loading.then(ready, ready);
        continue;
      }
      queued.delete(id);
      replies.push(answer(request));
      if (now() - started >= SLICE_MS) break;
    }
    if (replies.length > 0) {
      try {
        send(replies);
      } catch (error) {
        // A tree that cannot be sent: each block is told on its own, so one cannot hide others.
        for (const reply of replies) {
          try {
            send([reply]);
          } catch {
            send([{ id: reply.id, seq: reply.seq, error: describe(error) }]);
          }
        }
      }
    }
    // Only blocks that can be parsed now call for another run; the others wake it when ready.
    if (queued.size > preparing.size) wake();
  };

  const wake = () => {
    if (scheduled) return;
    scheduled = true;
    schedule(run);
  };

  const answer = (request: ParseRequest): MarkdownReply => {
    try {
      return { id: request.id, seq: request.seq, tree: parse(request.text, request.highlight) };
    } catch (error) {
      return { id: request.id, seq: request.seq, error: describe(error) };
    }
  };

  return {
    receive(message) {
      if ('cancel' in message) {
        queued.delete(message.id);
        preparing.delete(message.id);
        return;
      }
      const before = queued.get(message.id);
      if (before && before.seq > message.seq) return;
      // Map.set keeps a replaced entry's place: a block that keeps changing is not put last.
      queued.set(message.id, message);
      wake();
    },
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
