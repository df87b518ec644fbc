/**
 * Server-Sent Events over `fetch` (EventSource cannot send an Authorization header).
 *
 * The parser follows the HTML "event stream interpretation" rules: lines end with CRLF, LF or
 * CR (a CRLF split across two chunks counts once); `:` starts a comment (keep-alives); `data:`
 * lines accumulate joined by `\n`; a blank line dispatches; one space after the colon is
 * dropped; a block with no data dispatches nothing; `id:` sticks until changed (the last event
 * id); an `id` containing NUL is ignored.
 */

export interface SseMessage {
  /** The event name; `message` when the block named none. */
  event: string;
  data: string;
  /** The `id:` in force for this event (the event's seq on Tessera's streams), or null. */
  id: string | null;
}

export class SseParser {
  private buffer = '';
  /** A chunk ended with CR: a LF at the start of the next one belongs to that line end. */
  private pendingCr = false;
  private eventName = '';
  private data: string[] = [];
  private hasData = false;
  private lastId: string | null = null;

  constructor(private readonly onMessage: (message: SseMessage) => void) {}

  /** Feeds decoded text; any chunk boundary is fine. */
  push(text: string): void {
    let chunk = text;
    if (this.pendingCr) {
      this.pendingCr = false;
      if (chunk.startsWith('\n')) chunk = chunk.slice(1);
    }
    this.buffer += chunk;
    let start = 0;
    for (;;) {
      let end = -1;
      let next = -1;
      for (let i = start; i < this.buffer.length; i++) {
        const c = this.buffer.charCodeAt(i);
        if (c === 10) {
          end = i;
          next = i + 1;
          break;
        }
        if (c === 13) {
          end = i;
          if (i + 1 < this.buffer.length) {
            next = this.buffer.charCodeAt(i + 1) === 10 ? i + 2 : i + 1;
          } else {
            next = i + 1;
            this.pendingCr = true;
          }
          break;
        }
      }
      if (end < 0) break;
      this.line(this.buffer.slice(start, end));
      start = next;
    }
    this.buffer = this.buffer.slice(start);
  }

  /** The stream ended: an unterminated last block is discarded, as the spec says. */
  end(): void {
    this.buffer = '';
    this.resetBlock();
  }

  private resetBlock() {
    this.eventName = '';
    this.data = [];
    this.hasData = false;
  }

  private line(line: string) {
    if (line === '') {
      if (this.hasData) {
        this.onMessage({ event: this.eventName || 'message', data: this.data.join('\n'), id: this.lastId });
      }
      this.resetBlock();
      return;
    }
    if (line.startsWith(':')) return; // a comment (keep-alive)
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event':
        this.eventName = value;
        break;
      case 'data':
        this.data.push(value);
        this.hasData = true;
        break;
      case 'id':
        if (!value.includes('\0')) this.lastId = value;
        break;
      default:
        break; // `retry` and unknown fields: nothing to do here
    }
  }
}

/** Reads a response body as SSE messages, as they arrive. Ends when the body ends. */
export async function* readSse(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<SseMessage> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const queue: SseMessage[] = [];
  const parser = new SseParser((message) => queue.push(message));
  const onAbort = () => void reader.cancel().catch(() => {});
  signal?.addEventListener('abort', onAbort);
  try {
    for (;;) {
      if (signal?.aborted) return;
      const { value, done } = await reader.read();
      if (done) {
        parser.push(decoder.decode());
        parser.end();
        yield* queue.splice(0);
        return;
      }
      parser.push(decoder.decode(value, { stream: true }));
      while (queue.length > 0) {
        const next = queue.shift();
        if (next) yield next;
      }
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    try {
      reader.releaseLock();
    } catch {
      // a read still pending: the cancel above ends it
    }
  }
}
