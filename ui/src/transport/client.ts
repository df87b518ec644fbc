/**
 * The API client for `tessera serve`'s `/v1` (docs/api.md). Everything goes through
 * a small `Transport`, so the desktop shell can later carry the very same requests over Tauri
 * IPC (docs/design.md) instead of HTTP.
 */
import type { ErrorCode } from '../generated/ErrorCode';
import type { Answer } from '../generated/Answer';
import type { Attachment } from '../generated/Attachment';
import type { ClientCapabilities } from '../generated/ClientCapabilities';
import type { ConversationDetail } from '../generated/ConversationDetail';
import type { ConversationEdit } from '../generated/ConversationEdit';
import type { ConversationImported } from '../generated/ConversationImported';
import type { ConversationList } from '../generated/ConversationList';
import type { ConversationModel } from '../generated/ConversationModel';
import type { ConversationSummary } from '../generated/ConversationSummary';
import type { RunCancelled } from '../generated/RunCancelled';
import type { MessageMatch } from '../generated/MessageMatch';
import type { StoredMessage } from '../generated/StoredMessage';
import type { ErrorResponse } from '../generated/ErrorResponse';
import type { ExportFormat } from '../generated/ExportFormat';
import type { Event } from '../generated/Event';
import type { InteractionAnswered } from '../generated/InteractionAnswered';
import type { InteractionList } from '../generated/InteractionList';
import type { InteractionView } from '../generated/InteractionView';
import type { Message } from '../generated/Message';
import type { SenderType } from '../generated/SenderType';
import type { ToolResult } from '../generated/ToolResult';
import type { JsonValue } from '../generated/serde_json/JsonValue';
import { routes } from './routes';
import { readSse } from './sse';
import { getToken } from './token';

export interface TransportRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** Path under the API root, e.g. `/v1/conversations`. */
  path: string;
  headers?: Record<string, string>;
  /** Sent as JSON when present. */
  body?: unknown;
  signal?: AbortSignal | undefined;
}

/** One request, one `Response` (its body may be a stream). */
export interface Transport {
  send(request: TransportRequest): Promise<Response>;
}

/** The API answered with an MCP-CP ERROR_RESPONSE (or at least with an error status). */
/** An engine's error code, or `HTTP_<status>` when the answer was not the engine's. */
export type ApiErrorCode = ErrorCode | `HTTP_${number}`;

export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: ApiErrorCode,
    message: string,
    readonly details: { [key: string]: JsonValue } | undefined = undefined,
  ) {
    super(message);
  }

  /** `details.fields` of a 422: one message per field. */
  fieldErrors(): Record<string, string> {
    const out: Record<string, string> = {};
    const fields = this.details?.['fields'];
    if (!Array.isArray(fields)) return out;
    for (const entry of fields) {
      if (entry && typeof entry === 'object' && !Array.isArray(entry)) {
        const field = entry['field'];
        const message = entry['message'];
        if (typeof field === 'string' && typeof message === 'string') {
          out[field] = out[field] ? `${out[field]}; ${message}` : message;
        }
      }
    }
    return out;
  }
}

/** The engine could not be reached at all (server gone, connection refused or dropped). */
export class NetworkError extends Error {
  override readonly name = 'NetworkError';
  constructor(override readonly cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

export function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError';
}

/** HTTP to the page's own origin (`tessera serve` serves the UI and the API together). */
export function httpTransport(
  options: { baseUrl?: string; token?: () => string | null; fetch?: typeof fetch } = {},
): Transport {
  const baseUrl = options.baseUrl ?? '';
  const token = options.token ?? getToken;
  const doFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  return {
    async send(request) {
      const headers: Record<string, string> = { ...request.headers };
      const bearer = token();
      if (bearer) headers['Authorization'] = `Bearer ${bearer}`;
      const init: RequestInit = { method: request.method, headers };
      if (request.body !== undefined) {
        headers['Content-Type'] = 'application/json';
        init.body = JSON.stringify(request.body);
      }
      if (request.signal) init.signal = request.signal;
      try {
        return await doFetch(`${baseUrl}${request.path}`, init);
      } catch (error) {
        if (isAbort(error)) throw error;
        throw new NetworkError(error);
      }
    },
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Turns a non-2xx response into an ApiError, reading its ERROR_RESPONSE body when it is one. */
export async function errorOf(response: Response): Promise<ApiError> {
  let text = '';
  try {
    text = await response.text();
  } catch {
    // the body is gone: the status says enough
  }
  try {
    const body: unknown = JSON.parse(text);
    if (isObject(body) && body['type'] === 'ERROR_RESPONSE' && isObject(body['content'])) {
      const content = body['content'] as ErrorResponse;
      if (typeof content.errorCode === 'string' && typeof content.message === 'string') {
        // The engine's codes are ErrorCode's; a newer engine's new one is still shown as it came.
        return new ApiError(response.status, content.errorCode as ErrorCode, content.message, content.details);
      }
    }
  } catch {
    // not JSON
  }
  return new ApiError(response.status, `HTTP_${response.status}`, text.trim() || response.statusText || `HTTP ${response.status}`);
}

// ----- What the REST endpoints take and answer: generated from Rust (tessera_server::views,
// the engine's Answer). -----

export type { Answer, Attachment, ConversationDetail, ConversationEdit, ExportFormat, ConversationImported, ConversationList, ConversationModel, ConversationSummary, InteractionView, MessageMatch, StoredMessage };

/** One event of a stream with the SSE event name it came under and its seq (the SSE id). */
export interface StreamEvent {
  seq: number | null;
  /** `message`, `done`, or `error` (terminal: a run's fatal error). */
  name: string;
  event: Event;
}

export interface EventStream {
  /** `x-tessera-run-id` of a POST /v1/messages stream. */
  runId: string | null;
  events: AsyncGenerator<StreamEvent>;
}

async function* streamEvents(response: Response, signal?: AbortSignal): AsyncGenerator<StreamEvent> {
  if (!response.body) return;
  for await (const message of readSse(response.body, signal)) {
    let event: Event;
    try {
      event = JSON.parse(message.data) as Event;
    } catch {
      continue; // not an event: nothing to show
    }
    const fromId = message.id !== null && /^\d+$/.test(message.id) ? Number(message.id) : null;
    const seq = fromId ?? (typeof event.meta?.seq === 'number' ? event.meta.seq : null);
    yield { seq, name: message.event, event };
    // `event: error` ends the stream (seed 002 §14); `done` ends a run's stream.
    if (message.event === 'error' || message.event === 'done') return;
  }
}

export class TesseraClient {
  constructor(private readonly transport: Transport) {}

  /**
   * Any `/v1` call with a JSON answer, over this client's transport (so it carries the token,
   * or goes over IPC in the desktop shell); an error status becomes an ApiError. The settings,
   * permissions and inspector APIs build on it.
   */
  async json<T>(request: TransportRequest): Promise<T> {
    const response = await this.transport.send({ ...request, headers: { Accept: 'application/json', ...request.headers } });
    if (!response.ok) throw await errorOf(response);
    // 204 (a DELETE that has nothing to say) has no body to parse.
    if (response.status === 204) return undefined as T;
    return (await response.json()) as T;
  }

  async listConversations(signal?: AbortSignal): Promise<ConversationSummary[]> {
    const body = await this.json<ConversationList>({ method: 'GET', path: routes.conversations(), signal });
    return body.conversations;
  }

  getConversation(id: string, signal?: AbortSignal): Promise<ConversationDetail> {
    return this.json({ method: 'GET', path: routes.conversation(id), signal });
  }

  /** Conversations (archived ones too) whose title or messages hold every word of `query`. */
  async searchConversations(query: string, signal?: AbortSignal): Promise<ConversationSummary[]> {
    const body = await this.json<ConversationList>({
      method: 'GET',
      path: routes.conversations({ archived: 'all', q: query }),
      signal,
    });
    return body.conversations;
  }

  updateConversation(id: string, patch: ConversationEdit): Promise<ConversationSummary> {
    return this.json({ method: 'PATCH', path: routes.conversation(id), body: patch });
  }

  async deleteConversation(id: string): Promise<void> {
    await this.json({ method: 'DELETE', path: routes.conversation(id) });
  }

  /** The export as text: JSON for `context` and `messages`, a Markdown transcript for `markdown`. */
  async exportConversation(id: string, format: ExportFormat): Promise<string> {
    const response = await this.transport.send({
      method: 'GET',
      path: routes.conversationExport(id, format),
      headers: { Accept: format === 'markdown' ? 'text/markdown' : 'application/json' },
    });
    if (!response.ok) throw await errorOf(response);
    return response.text();
  }

  /** A context document or a list of MCP-CP messages becomes a new conversation. */
  /** `asCopy`: a conversation that is stored already is imported beside it, under a new id. */
  importConversation(document: unknown, asCopy = false): Promise<ConversationImported> {
    const path = routes.conversationImport();
    return this.json({ method: 'POST', path: asCopy ? `${path}?copy=true` : path, body: document });
  }

  /** Shows the branch through `messageId`; the conversation as `getConversation` answers it. */
  switchBranch(conversationId: string, messageId: string): Promise<ConversationDetail> {
    return this.json({
      method: 'POST',
      path: routes.conversationBranch(conversationId),
      body: { message_id: messageId },
    });
  }

  /** Answers again the person's message `messageId` answered (an answer's id, or theirs; none: the last one shown); the run's event stream. */
  async regenerate(conversationId: string, messageId: string | undefined, signal?: AbortSignal): Promise<EventStream> {
    const response = await this.transport.send({
      method: 'POST',
      path: routes.conversationRegenerate(conversationId),
      headers: { Accept: 'text/event-stream' },
      body: messageId === undefined ? {} : { message_id: messageId },
      signal,
    });
    if (!response.ok) throw await errorOf(response);
    return { runId: response.headers.get('x-tessera-run-id'), events: streamEvents(response, signal) };
  }

  async listInteractions(conversationId: string, signal?: AbortSignal): Promise<InteractionView[]> {
    const body = await this.json<InteractionList>({
      method: 'GET',
      path: routes.interactions({ conversation_id: conversationId }),
      signal,
    });
    return body.interactions;
  }

  answerInteraction(id: string, answer: Answer): Promise<InteractionAnswered> {
    return this.json({ method: 'POST', path: routes.interaction(id), body: answer });
  }

  /** `GET /v1/attachments/{sha256}`: a stored attachment's bytes (a tool's image). */
  async getAttachment(sha256: string, signal?: AbortSignal): Promise<Blob> {
    const response = await this.transport.send({ method: 'GET', path: routes.attachment(sha256), signal });
    if (!response.ok) throw await errorOf(response);
    return response.blob();
  }

  /** `CLIENT_CAPABILITIES`: the front-end tools this client runs in the conversation (seed 000 §4.7.1). */
  announceClientTools(conversationId: string, capabilities: ClientCapabilities): Promise<Message> {
    const message: Message = { ...envelope(conversationId, 'USER'), type: 'CLIENT_CAPABILITIES', content: capabilities };
    return this.json({ method: 'POST', path: routes.messages(), body: message });
  }

  /** `TOOL_CALL_RESPONSE`: this client's results for front-end calls waiting for it (§4.5.4). */
  respondToolCalls(conversationId: string, results: ToolResult[]): Promise<Message> {
    const message: Message = { ...envelope(conversationId, 'TOOL'), type: 'TOOL_CALL_RESPONSE', content: { results } };
    return this.json({ method: 'POST', path: routes.messages(), body: message });
  }

  cancelRun(runId: string): Promise<RunCancelled> {
    return this.json({ method: 'POST', path: routes.runCancel(runId) });
  }

  /**
   * `POST /v1/messages` with a USER_INPUT; the answer is the run's event stream. With
   * `parentMessageId` the text follows that message on a new branch (null: as the first
   * message), which is how an edited message is resent.
   */
  async sendUserInput(
    conversationId: string,
    text: string,
    signal?: AbortSignal,
    parentMessageId?: string | null,
    model?: ConversationModel | null,
    attachments: Attachment[] = [],
    project?: string,
  ): Promise<EventStream> {
    const metadata: { [key: string]: JsonValue } = {};
    if (parentMessageId !== undefined) metadata['parentMessageId'] = parentMessageId;
    if (model !== undefined) metadata['model'] = model;
    // A new conversation started in a project: in it from its first prompt on.
    if (project !== undefined) metadata['project'] = project;
    const message: Message = {
      messageId: newId(),
      contextId: conversationId,
      timestamp: new Date().toISOString(),
      sender: { id: 'user', type: 'USER' },
      type: 'USER_INPUT',
      content: attachments.length > 0 ? { text, attachments } : { text },
      ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
    };
    const response = await this.transport.send({
      method: 'POST',
      path: routes.messages(),
      headers: { Accept: 'text/event-stream' },
      body: message,
      signal,
    });
    if (!response.ok) throw await errorOf(response);
    return { runId: response.headers.get('x-tessera-run-id'), events: streamEvents(response, signal) };
  }

  /**
   * `GET /v1/conversations/{id}/events`: the stored events after `afterSeq` (all of them when
   * null), then live ones until a run's `done` or fatal error.
   */
  async followEvents(conversationId: string, afterSeq: number | null, signal?: AbortSignal): Promise<EventStream> {
    const headers: Record<string, string> = { Accept: 'text/event-stream' };
    if (afterSeq !== null) headers['Last-Event-ID'] = String(afterSeq);
    const response = await this.transport.send({
      method: 'GET',
      path: routes.conversationEvents(conversationId),
      headers,
      signal,
    });
    if (!response.ok) throw await errorOf(response);
    return { runId: null, events: streamEvents(response, signal) };
  }
}

/** The fields every MCP-CP message this client sends carries. */
function envelope(conversationId: string, sender: Extract<SenderType, 'USER' | 'TOOL'>) {
  return {
    messageId: newId(),
    contextId: conversationId,
    timestamp: new Date().toISOString(),
    sender: { id: sender === 'USER' ? 'user' : 'tessera-ui', type: sender },
  } as const;
}

/** A new random id (a UUID v4) for a message or a conversation. */
export function newId(): string {
  if (typeof crypto !== 'undefined' && typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
