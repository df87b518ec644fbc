import { TesseraClient, httpTransport } from '../transport/client';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
}

type Handler = (request: RecordedRequest) => Response | Promise<Response>;

/**
 * A stand-in for `tessera serve` in unit tests: routes (`GET /v1/conversations`) answered by
 * handlers, every request recorded. Unknown routes answer 404 as the server does.
 */
export function fakeEngine(routes: Record<string, Handler>) {
  const requests: RecordedRequest[] = [];
  const fetchFn = async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : input, 'http://127.0.0.1');
    const method = init?.method ?? 'GET';
    const request: RecordedRequest = {
      method,
      path: url.pathname + url.search,
      headers: (init?.headers as Record<string, string>) ?? {},
      body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined,
    };
    requests.push(request);
    const handler = routes[`${method} ${url.pathname + url.search}`] ?? routes[`${method} ${url.pathname}`];
    if (!handler) {
      return Response.json(
        { type: 'ERROR_RESPONSE', content: { errorCode: 'NOT_FOUND', message: `no route ${method} ${url.pathname}` } },
        { status: 404 },
      );
    }
    return handler(request);
  };
  return { client: new TesseraClient(httpTransport({ fetch: fetchFn, token: () => 'test-token' })), requests };
}

/** An SSE response from recorded stream text, its conversation id replaced by `conversationId`. */
export function sseFrom(recorded: string, conversationId: string, headers: Record<string, string> = {}) {
  const text = recorded.replace(/"conversation_id":"[^"]*"/g, `"conversation_id":${JSON.stringify(conversationId)}`);
  return new Response(text, { status: 200, headers: { 'content-type': 'text/event-stream', ...headers } });
}

/** A stream that stays open (a live follow with nothing new). */
export function openStream(signal?: AbortSignal | null) {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      signal?.addEventListener('abort', () => controller.error(new DOMException('aborted', 'AbortError')));
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}
