import { describe, expect, it, vi } from 'vitest';
import { ApiError, NetworkError, TesseraClient, httpTransport, type StreamEvent } from './client';
import { TOKEN_STORAGE_KEY } from './token';

function sseResponse(text: string, headers: Record<string, string> = {}) {
  return new Response(text, { status: 200, headers: { 'content-type': 'text/event-stream', ...headers } });
}

const envelope = (seq: number, type: string, payload: object, domain = 'system') =>
  JSON.stringify({ protocol: 'easyflow-chat', version: '1.1', domain, type, conversation_id: 'c', payload, meta: { seq } });

async function collect(events: AsyncGenerator<StreamEvent>) {
  const out: StreamEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

describe('API client', () => {
  it('sends the token from sessionStorage as a bearer token', async () => {
    sessionStorage.setItem(TOKEN_STORAGE_KEY, 'tok-1');
    const fetchMock = vi.fn(() => Promise.resolve(Response.json({ conversations: [] })));
    const client = new TesseraClient(httpTransport({ fetch: fetchMock }));
    await client.listConversations();
    expect(fetchMock).toHaveBeenCalledOnce();
    const [url, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('/v1/conversations');
    expect((init.headers as Record<string, string>)['Authorization']).toBe('Bearer tok-1');
  });

  it('turns an ERROR_RESPONSE into a typed error with code, message and field details', async () => {
    const body = {
      messageId: 'e',
      contextId: 'none',
      timestamp: '2026-11-23T19:05:24.469Z',
      type: 'ERROR_RESPONSE',
      sender: { id: 'tessera', type: 'SYSTEM' },
      content: {
        errorCode: 'INVALID_VALUES',
        message: 'some values are not accepted',
        details: { fields: [{ field: 'email', message: 'must be a valid email address' }, { field: 'nights', message: 'must be at least 1' }] },
      },
    };
    const client = new TesseraClient(httpTransport({ fetch: () => Promise.resolve(Response.json(body, { status: 422 })) }));
    const error = await client.answerInteraction('f1', { action: 'accept', values: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    const api = error as ApiError;
    expect([api.status, api.code, api.message]).toEqual([422, 'INVALID_VALUES', 'some values are not accepted']);
    expect(api.fieldErrors()).toEqual({ email: 'must be a valid email address', nights: 'must be at least 1' });
  });

  it('keeps a non-JSON error readable', async () => {
    const client = new TesseraClient(httpTransport({ fetch: () => Promise.resolve(new Response('unauthorized', { status: 401 })) }));
    await expect(client.listConversations()).rejects.toMatchObject({ status: 401, code: 'HTTP_401', message: 'unauthorized' });
  });

  it('reports an unreachable engine as a network error', async () => {
    const client = new TesseraClient(
      httpTransport({
        fetch: () => Promise.reject(new TypeError('Failed to fetch')),
      }),
    );
    const error = await client.listConversations().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).message).toBe('Failed to fetch');
  });

  it('posts a USER_INPUT for the conversation and streams the run with its id', async () => {
    let sent: { url: string; init: RequestInit } | undefined;
    const stream = `id: 1\nevent: message\ndata: ${envelope(1, 'status', { state: 'running' })}\n\n:keep-alive\n\nid: 2\nevent: done\ndata: ${envelope(2, 'done', {})}\n\nid: 3\ndata: ${envelope(3, 'status', { state: 'running' })}\n\n`;
    const client = new TesseraClient(
      httpTransport({
        fetch: (url, init) => {
          sent = { url: url instanceof Request ? url.url : url.toString(), init: init ?? {} };
          return Promise.resolve(sseResponse(stream, { 'x-tessera-run-id': 'run-9' }));
        },
      }),
    );
    const { runId, events } = await client.sendUserInput('conv-1', 'Hello');
    expect(runId).toBe('run-9');
    const body = JSON.parse(sent?.init.body as string) as { messageId: string };
    expect(body).toMatchObject({ contextId: 'conv-1', type: 'USER_INPUT', sender: { type: 'USER' }, content: { text: 'Hello' } });
    expect(body.messageId).toMatch(/^[0-9a-f-]{36}$/);
    expect((sent?.init.headers as Record<string, string>)['Accept']).toBe('text/event-stream');
    const got = await collect(events);
    // `done` ends the run's stream: what follows is not read.
    expect(got.map((e) => [e.seq, e.name, e.event.type])).toEqual([
      [1, 'message', 'status'],
      [2, 'done', 'done'],
    ]);
  });

  it('names the project a new conversation starts in, and nothing when there is none', async () => {
    const bodies: unknown[] = [];
    const client = new TesseraClient(
      httpTransport({
        fetch: (_url, init) => {
          bodies.push(JSON.parse(init?.body as string));
          return Promise.resolve(sseResponse(''));
        },
      }),
    );
    await client.sendUserInput('conv-2', 'Hi', undefined, undefined, undefined, [], 'project-7');
    await client.sendUserInput('conv-3', 'Hi');
    expect(bodies[0]).toMatchObject({ metadata: { project: 'project-7' } });
    expect(bodies[1]).not.toHaveProperty('metadata');
  });

  it('treats `event: error` as terminal', async () => {
    const stream = `id: 4\nevent: error\ndata: ${envelope(4, 'error', { code: 'PROVIDER', message: 'boom', retryable: false })}\n\nid: 5\ndata: ${envelope(5, 'status', { state: 'running' })}\n\n`;
    const client = new TesseraClient(httpTransport({ fetch: () => Promise.resolve(sseResponse(stream)) }));
    const got = await collect((await client.followEvents('c', null)).events);
    expect(got.map((e) => [e.seq, e.name])).toEqual([[4, 'error']]);
  });

  it('resumes with Last-Event-ID from the last seq seen', async () => {
    const fetchMock = vi.fn(() => Promise.resolve(sseResponse('')));
    const client = new TesseraClient(httpTransport({ fetch: fetchMock }));
    await collect((await client.followEvents('a b', 41)).events);
    await collect((await client.followEvents('a b', null)).events);
    const calls = fetchMock.mock.calls as unknown as [string, RequestInit][];
    expect(calls[0]?.[0]).toBe('/v1/conversations/a%20b/events');
    expect((calls[0]?.[1].headers as Record<string, string>)['Last-Event-ID']).toBe('41');
    expect((calls[1]?.[1].headers as Record<string, string>)['Last-Event-ID']).toBeUndefined();
  });
});
