/**
 * What the chat shows, folded from a conversation's easyflow-chat events (seed 002, docs/design.md
 * "Wire decisions"). Pure: `reduce(state, event)` returns a new state, or the very same object
 * when the event changes nothing — so an event seen twice (a reconnect that overlaps, the POST
 * stream and the follow stream both delivering it) is harmless.
 *
 * - Ordering: every stored event carries `meta.seq` (the SSE id). An event at or below the
 *   last seq applied is ignored, except a folded event (`meta.replaces: {from, to}`), which
 *   sets a whole text block and so can be applied again without harm.
 * - One assistant message per run (`message_id`), made of parts in the order they began:
 *   text blocks and thinking blocks (keyed by the event `index`) and tool cards.
 * - Tool calls nested in a specialist's call have ids `parent/child`; they are grouped under
 *   the parent card.
 * - An instruction set's `workflow/graph` (a planner's plan) is kept as a plan of its run's
 *   message; its steps' states are read from their tool cards (plan/model.ts).
 */
import type { ConsentRequestPayload } from '../generated/ConsentRequestPayload';
import type { Event } from '../generated/Event';
import type { FormRequestPayload } from '../generated/FormRequestPayload';
import type { InteractionView } from '../generated/InteractionView';
import type { Runtime } from '../generated/Runtime';
import type { SystemState } from '../generated/SystemState';
import type { ToolResultStatus } from '../generated/ToolResultStatus';
import type { WorkflowState } from '../generated/WorkflowState';
import type { JsonValue } from '../generated/serde_json/JsonValue';
import { planFromGraph, withPlan, type Plan } from './plan/model';

export type Part =
  | { kind: 'text'; key: string; text: string }
  /** `startedMs`/`lastMs`: when the first and the latest of its deltas were stored (how long the model thought). */
  | { kind: 'thinking'; key: string; text: string; startedMs?: number | undefined; lastMs?: number | undefined }
  | { kind: 'tool'; id: string };

function millis(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/** Where a tool call stands: its arguments streaming in, complete, queued, running, or its outcome. */
export type ToolPhase = 'preparing' | 'called' | 'queued' | 'running' | ToolResultStatus;

export interface ToolCard {
  id: string;
  name: string;
  /** The enclosing call of a nested call (a specialist's), else null. */
  parentId: string | null;
  children: string[];
  phase: ToolPhase;
  /** Argument text as it streams (before the call is complete). */
  argumentsDraft: string;
  /** The arguments after `${…}` substitution, once complete. */
  arguments?: JsonValue;
  dependsOn: string[];
  runtime?: Runtime;
  provider?: string;
  position?: number;
  progress?: { progress: number; total?: number; message?: string };
  result?: JsonValue;
  error?: JsonValue;
  durationMs?: number;
  /** A specialist's progress (`workflow/status`, node_kind agent). */
  agent?: { turn?: number; maxTurns?: number; state: WorkflowState };
  /** The call's `userPrompt` (seed 000 §4.5.3): the agent's words, shown as such. */
  agentSays?: string;
}

export interface Usage {
  promptTokens?: number;
  completionTokens?: number;
  latencyMs?: number;
  firstTokenLatencyMs?: number;
  costUsd?: number;
  /** Tessera counted some of it (the provider reported none: the answer was stopped or cut). */
  estimated?: boolean;
}

export interface RunError {
  code: string;
  message: string;
  retryable: boolean;
  /** A retry on its way: which attempt, and in how long (the engine's `detail`). */
  retry?: { attempt: number; delayMs: number };
}

export interface AssistantMessage {
  id: string;
  runId: string | null;
  parts: Part[];
  /** The instruction sets run in this message (a planner's plan), their shape from `workflow/graph`. */
  plans?: Plan[];
  /** Recoverable problems (a retry is coming) and business errors, in order. */
  notices: RunError[];
  usage?: Usage;
}

export interface RunInfo {
  id: string;
  messageId: string | null;
  state: SystemState;
  /** The fatal error that ended the run. */
  fatal?: RunError;
  done: boolean;
  /** The person's message the run answers (its first `running` says), once known. */
  question?: string;
}

export interface PendingForm {
  formId: string;
  messageId: string | null;
  runId: string | null;
  request: FormRequestPayload;
}

export interface PendingConsent {
  consentId: string;
  messageId: string | null;
  runId: string | null;
  request: ConsentRequestPayload;
}

export interface ChatState {
  lastSeq: number;
  messageOrder: string[];
  messages: Record<string, AssistantMessage>;
  tools: Record<string, ToolCard>;
  runOrder: string[];
  runs: Record<string, RunInfo>;
  /** Forms waiting for an answer, by form_id. */
  forms: Record<string, PendingForm>;
  /** Consent requests waiting for a decision, by consent_id. */
  consents: Record<string, PendingConsent>;
  /** Interactions known to be answered or withdrawn (a stale listing never brings them back). */
  closed: Record<string, true>;
}

export const initialChatState: ChatState = {
  lastSeq: 0,
  messageOrder: [],
  messages: {},
  tools: {},
  runOrder: [],
  runs: {},
  forms: {},
  consents: {},
  closed: {},
};

/** The run's state when it is still going (running, waiting for the person…). */
export function isLive(state: SystemState): boolean {
  return state === 'initializing' || state === 'running' || state === 'resumed' || state === 'suspended';
}

/** The newest run that has not ended, if any. */
export function activeRun(state: ChatState): RunInfo | null {
  for (let i = state.runOrder.length - 1; i >= 0; i--) {
    const run = state.runs[state.runOrder[i] ?? ''];
    if (run && !run.done && isLive(run.state)) return run;
  }
  return null;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function replacesOf(event: Event): { from: number; to: number } | null {
  const r = event.meta?.['replaces'];
  if (r && typeof r === 'object' && !Array.isArray(r)) {
    const from = num(r['from']);
    const to = num(r['to']);
    if (from !== undefined && to !== undefined) return { from, to };
  }
  return null;
}

/** Parent id of a nested call id (`parent/child`), when that parent is known. */
function parentOf(tools: Record<string, ToolCard>, id: string): string | null {
  const slash = id.lastIndexOf('/');
  if (slash <= 0) return null;
  const parent = id.slice(0, slash);
  return tools[parent] ? parent : null;
}

/** Folds one event in. Returns `state` itself when nothing changes. */
export function reduce(state: ChatState, event: Event, seqHint: number | null = null): ChatState {
  const seq = num(event.meta?.seq) ?? seqHint;
  const replaces = replacesOf(event);
  if (seq !== null && seq <= state.lastSeq && !replaces) return state;
  const next = apply(state, event, replaces !== null);
  const top = Math.max(seq ?? 0, replaces?.to ?? 0);
  if (next === state && top <= state.lastSeq) return state;
  return top > next.lastSeq ? { ...next, lastSeq: top } : next;
}

/** Folds many events (a replay). */
export function reduceAll(state: ChatState, events: Iterable<Event>): ChatState {
  let s = state;
  for (const e of events) s = reduce(s, e);
  return s;
}

function messageOfRun(state: ChatState, runId: string | undefined): string | null {
  if (!runId) return null;
  const known = state.runs[runId]?.messageId;
  if (known) return known;
  for (let i = state.messageOrder.length - 1; i >= 0; i--) {
    const id = state.messageOrder[i] ?? '';
    if (state.messages[id]?.runId === runId) return id;
  }
  return null;
}

function withMessage(state: ChatState, event: Event, change: (m: AssistantMessage) => AssistantMessage): ChatState {
  const id = event.message_id;
  if (!id) return state;
  const runId = str(event.meta?.run_id) ?? null;
  const existing = state.messages[id];
  const base: AssistantMessage = existing ?? { id, runId, parts: [], notices: [] };
  const changed = change(base);
  if (changed === existing) return state;
  return {
    ...state,
    messageOrder: existing ? state.messageOrder : [...state.messageOrder, id],
    messages: { ...state.messages, [id]: changed.runId === null && runId ? { ...changed, runId } : changed },
  };
}

function withRun(state: ChatState, event: Event, change: (r: RunInfo) => RunInfo): ChatState {
  const runId = str(event.meta?.run_id);
  if (!runId) return state;
  const existing = state.runs[runId];
  const base: RunInfo = existing ?? { id: runId, messageId: event.message_id ?? null, state: 'running', done: false };
  const changed = change(base);
  if (changed === existing) return state;
  return {
    ...state,
    runOrder: existing ? state.runOrder : [...state.runOrder, runId],
    runs: { ...state.runs, [runId]: changed },
  };
}

function withTool(state: ChatState, event: Event, id: string, name: string | undefined, change: (t: ToolCard) => ToolCard): ChatState {
  const existing = state.tools[id];
  let s = state;
  let card: ToolCard;
  if (existing) {
    card = change(existing);
    if (card === existing) return state;
  } else {
    const parentId = parentOf(state.tools, id);
    card = change({ id, name: name ?? '', parentId, children: [], phase: 'preparing', argumentsDraft: '', dependsOn: [] });
    if (parentId) {
      const parent = state.tools[parentId];
      if (parent) s = { ...s, tools: { ...s.tools, [parentId]: { ...parent, children: [...parent.children, id] } } };
    } else {
      s = withMessage(s, event, (m) => ({ ...m, parts: [...m.parts, { kind: 'tool', id }] }));
    }
  }
  if (name && !card.name) card = { ...card, name };
  return { ...s, tools: { ...s.tools, [id]: card } };
}

function textPart(state: ChatState, event: Event, kind: 'text' | 'thinking', payload: { delta?: string; content?: string; block?: number }, whole: boolean): ChatState {
  // `index` numbers the pieces; the block they make up is the payload's (older servers and
  // stored events without it carried the block as `index`).
  const key = `${kind}:${payload.block ?? event.index ?? 0}`;
  const delta = payload.delta;
  const content = payload.content;
  if (delta === undefined && content === undefined) return state;
  return withMessage(state, event, (m) => {
    const at = m.parts.findIndex((p) => p.kind === kind && p.key === key);
    const old = at >= 0 ? m.parts[at] : undefined;
    const oldText = old && old.kind !== 'tool' ? old.text : '';
    const text = content !== undefined || whole ? (content ?? '') : oldText + (delta ?? '');
    if (old && oldText === text) return m;
    let part: Part;
    if (kind === 'thinking') {
      const at = millis(event.meta?.ts);
      const began = millis(event.meta?.['started_ts']) ?? at;
      const before = old?.kind === 'thinking' ? old : undefined;
      part = { kind, key, text, startedMs: before?.startedMs ?? began, lastMs: at ?? before?.lastMs };
    } else {
      part = { kind, key, text };
    }
    const parts = at >= 0 ? m.parts.map((p, i) => (i === at ? part : p)) : [...m.parts, part];
    return { ...m, parts };
  });
}

const PHASE_RANK: Record<string, number> = { preparing: 0, called: 1, queued: 2, running: 3 };

/** Phases only move forward (a late `tool_queued` never undoes `tool_started`). */
function advance(card: ToolCard, phase: ToolPhase): ToolCard {
  const current = PHASE_RANK[card.phase] ?? 9;
  const wanted = PHASE_RANK[phase] ?? 9;
  if (wanted < current || card.phase === phase) return card;
  return { ...card, phase };
}

function without<T>(record: Record<string, T>, key: string): Record<string, T> {
  if (!(key in record)) return record;
  const copy = { ...record };
  delete copy[key];
  return copy;
}

/** Events of one domain, with their payloads typed. */
type EventOf<D extends Event['domain']> = Extract<Event, { domain: D }>;

/** Compile-time proof that every domain and type was handled; at run time an event of a type
 * this build does not know (a newer server) changes nothing. */
function unhandled(event: never, state: ChatState): ChatState {
  void event;
  return state;
}

function apply(state: ChatState, event: Event, folded: boolean): ChatState {
  switch (event.domain) {
    case 'llm':
      return applyLlm(state, event, folded);
    case 'tool':
      return applyTool(state, event);
    case 'workflow':
      return applyWorkflow(state, event);
    case 'interaction':
      return applyInteraction(state, event);
    case 'system':
      return applySystem(state, event);
    case 'business':
      // A business rule's refusal (spending limit, quota): said in the message; the run's
      // `failed` status that follows makes it why the run failed.
      return withMessage(state, event, (m) => ({
        ...m,
        notices: [...m.notices, { code: event.payload.code, message: event.payload.message, retryable: false }],
      }));
    case 'debug':
      // Figures a client asked for (`metadata.debug`): not drawn in the chat.
      return state;
    default:
      return unhandled(event, state);
  }
}

function applyLlm(state: ChatState, event: EventOf<'llm'>, folded: boolean): ChatState {
  const { delta, content, block } = event.payload;
  const part: { delta?: string; content?: string; block?: number } = {};
  if (delta != null) part.delta = delta;
  if (content != null) part.content = content;
  if (block != null) part.block = block;
  switch (event.type) {
    case 'message':
      return textPart(state, event, 'text', part, folded);
    case 'thinking':
      return textPart(state, event, 'thinking', part, folded);
    default:
      return unhandled(event, state);
  }
}

function applyTool(state: ChatState, event: EventOf<'tool'>): ChatState {
  switch (event.type) {
    case 'tool_call_delta': {
      const { tool_call_id: id, delta, name } = event.payload;
      if (!id) return state;
      return withTool(state, event, id, name ?? undefined, (t) =>
        t.phase === 'preparing' && delta ? { ...t, argumentsDraft: t.argumentsDraft + delta } : t,
      );
    }
    case 'tool_call': {
      const p = event.payload;
      return withTool(state, event, p.tool_call_id, p.name, (t) => {
        const card: ToolCard = { ...advance(t, 'called'), arguments: p.arguments, dependsOn: p.depends_on ?? [], argumentsDraft: '' };
        if (p.runtime) card.runtime = p.runtime;
        if (p.provider) card.provider = p.provider;
        if (p.agent_says) card.agentSays = p.agent_says;
        return card;
      });
    }
    case 'tool_queued': {
      const { tool_call_id: id, name, position } = event.payload;
      return withTool(state, event, id, name, (t) => {
        const card = advance(t, 'queued');
        return card.position !== position ? { ...card, position } : card;
      });
    }
    case 'tool_started':
      return withTool(state, event, event.payload.tool_call_id, undefined, (t) => advance(t, 'running'));
    case 'tool_progress': {
      const { tool_call_id: id, progress, total, message } = event.payload;
      return withTool(state, event, id, undefined, (t) => {
        const p: NonNullable<ToolCard['progress']> = { progress };
        if (total != null) p.total = total;
        if (message != null) p.message = message;
        return { ...advance(t, 'running'), progress: p };
      });
    }
    case 'tool_result': {
      const p = event.payload;
      return withTool(state, event, p.tool_call_id, undefined, (t) => {
        const card: ToolCard = { ...t, phase: p.status };
        if ('result' in p) card.result = p.result ?? null;
        if ('error' in p) card.error = p.error ?? null;
        if (p.duration_ms != null) card.durationMs = p.duration_ms;
        return card;
      });
    }
    case 'queue_drained':
      // Every call of the queue has ended: each card already says how.
      return state;
    default:
      return unhandled(event, state);
  }
}

function applyWorkflow(state: ChatState, event: EventOf<'workflow'>): ChatState {
  switch (event.type) {
    case 'status': {
      const p = event.payload;
      if (p.node_kind !== 'agent' || !state.tools[p.node_id]) return state;
      return withTool(state, event, p.node_id, undefined, (t) => {
        const agent: NonNullable<ToolCard['agent']> = { state: p.state };
        const turn = p.turn ?? t.agent?.turn;
        const maxTurns = p.max_turns ?? t.agent?.maxTurns;
        if (turn != null) agent.turn = turn;
        if (maxTurns != null) agent.maxTurns = maxTurns;
        return { ...t, agent };
      });
    }
    case 'graph': {
      const plan = planFromGraph(event.payload);
      if (!plan) return state;
      // Workflow events carry no message_id: the plan belongs to its run's message.
      const messageId = event.message_id ?? messageOfRun(state, str(event.meta?.run_id));
      if (!messageId) return state;
      return withMessage(state, { ...event, message_id: messageId }, (m) => ({ ...m, plans: withPlan(m.plans, plan) }));
    }
    default:
      return unhandled(event, state);
  }
}

function applyInteraction(state: ChatState, event: EventOf<'interaction'>): ChatState {
  switch (event.type) {
    case 'form_request': {
      const request = event.payload;
      if (state.closed[request.form_id]) return state;
      return {
        ...state,
        forms: {
          ...state.forms,
          [request.form_id]: { formId: request.form_id, messageId: event.message_id ?? null, runId: str(event.meta?.run_id) ?? null, request },
        },
      };
    }
    case 'form_result':
    case 'form_cancel':
      return closeInteraction(state, event.payload.form_id);
    case 'consent_request': {
      const request = event.payload;
      if (state.closed[request.consent_id]) return state;
      return {
        ...state,
        consents: {
          ...state.consents,
          [request.consent_id]: {
            consentId: request.consent_id,
            messageId: event.message_id ?? null,
            runId: str(event.meta?.run_id) ?? null,
            request,
          },
        },
      };
    }
    case 'consent_result':
      return closeInteraction(state, event.payload.consent_id);
    default:
      return unhandled(event, state);
  }
}

function applySystem(state: ChatState, event: EventOf<'system'>): ChatState {
  switch (event.type) {
    case 'status': {
      const runState = event.payload.state;
      const question = event.payload.user_message_id;
      let s = withRun(state, event, (r) => (r.state === runState && (!question || r.question === question) ? r : { ...r, state: runState, ...(question ? { question } : {}) }));
      if (event.message_id) s = withMessage(s, event, (m) => m);
      // A business rule's refusal (spending limit, quota) that failed the run is why it failed.
      const refusal = event.message_id ? s.messages[event.message_id]?.notices.filter((n) => !n.retryable).at(-1) : undefined;
      if (runState === 'failed' && refusal) {
        const runId = str(event.meta?.run_id);
        if (runId && !s.runs[runId]?.fatal) {
          s = withRun(s, event, (r) => ({ ...r, fatal: refusal }));
          s = withMessage(s, event, (m) => ({ ...m, notices: m.notices.filter((n) => n !== refusal) }));
        }
      }
      // A run that ended leaves nothing waiting.
      if (!isLive(runState)) s = dropInteractionsOf(s, str(event.meta?.run_id));
      return s;
    }
    case 'error': {
      const p = event.payload;
      const error: RunError = { code: p.code, message: p.message, retryable: p.retryable === true };
      const detail = p.detail as { attempt?: unknown; delay_ms?: unknown } | null | undefined;
      if (error.retryable && typeof detail?.attempt === 'number' && typeof detail.delay_ms === 'number') error.retry = { attempt: detail.attempt, delayMs: detail.delay_ms };
      if (error.retryable) return withMessage(state, event, (m) => ({ ...m, notices: [...m.notices, error] }));
      const s = withRun(state, event, (r) => ({ ...r, fatal: error, state: 'failed' }));
      return withMessage(s, event, (m) => m);
    }
    case 'model_fallback':
      // The answer goes on with the provider's fallback model; the done's usage names it.
      return state;
    case 'done': {
      const meta = event.meta ?? {};
      const usage: Usage = {};
      const prompt = num(meta.prompt_tokens);
      const completion = num(meta.completion_tokens);
      const latency = num(meta.latency_ms);
      const first = num(meta.first_token_latency_ms);
      if (prompt !== undefined) usage.promptTokens = prompt;
      if (completion !== undefined) usage.completionTokens = completion;
      if (latency !== undefined) usage.latencyMs = latency;
      if (first !== undefined) usage.firstTokenLatencyMs = first;
      if (meta['usage_estimated'] === true) usage.estimated = true;
      const perModel = meta.usage;
      if (perModel && typeof perModel === 'object') {
        let cost: number | undefined;
        for (const value of Object.values(perModel)) {
          if (value && typeof value === 'object' && !Array.isArray(value)) {
            const c = num(value['estimated_cost_usd']);
            if (c !== undefined) cost = (cost ?? 0) + c;
          }
        }
        if (cost !== undefined) usage.costUsd = cost;
      }
      let s = withRun(state, event, (r) => ({ ...r, done: true, state: isLive(r.state) ? 'completed' : r.state }));
      s = withMessage(s, event, (m) => ({ ...m, usage }));
      return dropInteractionsOf(s, str(event.meta?.run_id));
    }
    default:
      return unhandled(event, state);
  }
}

function dropInteractionsOf(state: ChatState, runId: string | undefined): ChatState {
  if (!runId) return state;
  const forms = Object.fromEntries(Object.entries(state.forms).filter(([, f]) => f.runId !== runId));
  const consents = Object.fromEntries(Object.entries(state.consents).filter(([, c]) => c.runId !== runId));
  const same = Object.keys(forms).length === Object.keys(state.forms).length && Object.keys(consents).length === Object.keys(state.consents).length;
  return same ? state : { ...state, forms, consents };
}

/** An interaction was answered (here or elsewhere) or withdrawn: it no longer waits. */
export function closeInteraction(state: ChatState, id: string): ChatState {
  if (state.closed[id] && !(id in state.forms) && !(id in state.consents)) return state;
  return { ...state, forms: without(state.forms, id), consents: without(state.consents, id), closed: { ...state.closed, [id]: true } };
}

/** Adds what `GET /v1/interactions` says waits (e.g. a form pending when the app opens). */
export function withPendingInteractions(state: ChatState, pending: InteractionView[]): ChatState {
  let s = state;
  for (const p of pending) {
    const id = p.interaction_id;
    if (p.state !== 'pending' || s.closed[id] || id in s.forms || id in s.consents) continue;
    const messageId = str(p.request['message_id']) ?? null;
    switch (p.kind) {
      case 'form':
        s = { ...s, forms: { ...s.forms, [id]: { formId: id, messageId, runId: p.run_id, request: p.request } } };
        break;
      case 'consent':
        s = { ...s, consents: { ...s.consents, [id]: { consentId: id, messageId, runId: p.run_id, request: p.request } } };
        break;
      default:
        s = unhandled(p, s);
    }
  }
  return s;
}
