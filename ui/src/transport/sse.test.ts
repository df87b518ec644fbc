import { describe, expect, it } from 'vitest';
import textStream from '../chat/fixtures/text.sse?raw';
import { SseParser, readSse, type SseMessage } from './sse';

function parseChunks(chunks: string[]): SseMessage[] {
  const out: SseMessage[] = [];
  const parser = new SseParser((m) => out.push(m));
  for (const c of chunks) parser.push(c);
  parser.end();
  return out;
}

/** Every way of cutting `text` in two, and in single characters. */
function allSplits(text: string): string[][] {
  const splits: string[][] = [[text], Array.from(text)];
  for (let i = 1; i < text.length; i++) splits.push([text.slice(0, i), text.slice(i)]);
  return splits;
}

function bodyOf(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const c of chunks) controller.enqueue(encoder.encode(c));
      controller.close();
    },
  });
}

describe('SSE parser', () => {
  it('reads id, event and data, with the seq as the id', () => {
    expect(parseChunks(['id: 7\nevent: done\ndata: {"a":1}\n\n'])).toEqual([{ event: 'done', data: '{"a":1}', id: '7' }]);
  });

  it('joins multi-line data with \\n and names unnamed events `message`', () => {
    expect(parseChunks(['data: one\ndata:two\ndata:  three\n\n'])).toEqual([{ event: 'message', data: 'one\ntwo\n three', id: null }]);
  });

  it('ignores comments (keep-alives) and blocks without data, and keeps the last id', () => {
    const got = parseChunks([':keep-alive\n\n: another\nid: 3\n\nevent: x\n\ndata: a\n\n']);
    expect(got).toEqual([{ event: 'message', data: 'a', id: '3' }]);
  });

  it('accepts CRLF, CR and LF line ends, also a CRLF split across chunks', () => {
    const text = 'id: 1\r\nevent: message\r\ndata: a\r\n\r\nid: 2\rdata: b\r\rdata: c\n\n';
    const expected = [
      { event: 'message', data: 'a', id: '1' },
      { event: 'message', data: 'b', id: '2' },
      { event: 'message', data: 'c', id: '2' },
    ];
    for (const split of allSplits(text)) expect(parseChunks(split)).toEqual(expected);
  });

  it('gives the same events for a recorded stream cut at every byte', () => {
    const whole = parseChunks([textStream]);
    expect(whole.map((m) => [m.id, m.event])).toEqual([
      ['1', 'message'],
      ['2', 'message'],
      ['3', 'message'],
      ['4', 'message'],
      ['5', 'message'],
      ['6', 'done'],
    ]);
    for (const split of allSplits(textStream)) expect(parseChunks(split)).toEqual(whole);
  });

  it('drops an unterminated last block', () => {
    expect(parseChunks(['data: a\n\ndata: half'])).toEqual([{ event: 'message', data: 'a', id: null }]);
  });

  it('decodes UTF-8 split inside a character', async () => {
    const bytes = new TextEncoder().encode('data: 你好\n\n');
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const b of bytes) controller.enqueue(new Uint8Array([b]));
        controller.close();
      },
    });
    const got: SseMessage[] = [];
    for await (const m of readSse(body)) got.push(m);
    expect(got).toEqual([{ event: 'message', data: '你好', id: null }]);
  });

  it('reads a body stream as it arrives', async () => {
    const got: SseMessage[] = [];
    for await (const m of readSse(bodyOf(['id: 1\nda', 'ta: x\n', '\nid: 2\ndata: y\n\n']))) got.push(m);
    expect(got.map((m) => [m.id, m.data])).toEqual([
      ['1', 'x'],
      ['2', 'y'],
    ]);
  });
});
