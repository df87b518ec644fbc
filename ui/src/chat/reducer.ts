/**
 * What the chat shows, folded from a conversation's easyflow-chat events (seed 002, DESIGN.md
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
  runtime?: string;
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

function apply(state: ChatState, event: Event, folded: boolean): ChatState {
  const payload = event.payload as Record<string, JsonValue | undefined>;
  switch (`${event.domain}/${event.type}`) {
    case 'llm/message':
      return textPart(state, event, 'text', payload as { delta?: string; content?: string; block?: number }, folded);
    case 'llm/thinking':
      return textPart(state, event, 'thinking', payload as { delta?: string; content?: string; block?: number }, folded);

    case 'tool/tool_call_delta': {
      const id = str(payload['tool_call_id']);
      if (!id) return state;
      const delta = str(payload['delta']) ?? '';
      return withTool(state, event, id, str(payload['name']), (t) =>
        t.phase === 'preparing' && delta ? { ...t, argumentsDraft: t.argumentsDraft + delta } : t,
      );
    }
    case 'tool/tool_call': {
      const id = str(payload['tool_call_id']);
      if (!id) return state;
      return withTool(state, event, id, str(payload['name']), (t) => {
        const dependsOn = Array.isArray(payload['depends_on']) ? payload['depends_on'].filter((d): d is string => typeof d === 'string') : [];
        const card: ToolCard = { ...advance(t, 'called'), arguments: payload['arguments'] ?? null, dependsOn, argumentsDraft: '' };
        const runtime = str(payload['runtime']);
        const provider = str(payload['provider']);
        if (runtime) card.runtime = runtime;
        if (provider) card.provider = provider;
        const agentSays = str(payload['agent_says']);
        if (agentSays) card.agentSays = agentSays;
        return card;
      });
    }
    case 'tool/tool_queued': {
      const id = str(payload['tool_call_id']);
      if (!id) return state;
      return withTool(state, event, id, str(payload['name']), (t) => {
        const position = num(payload['position']);
        const card = advance(t, 'queued');
        return position !== undefined && card.position !== position ? { ...card, position } : card;
      });
    }
    case 'tool/tool_started': {
      const id = str(payload['tool_call_id']);
      if (!id) return state;
      return withTool(state, event, id, undefined, (t) => advance(t, 'running'));
    }
    case 'tool/tool_progress': {
      const id = str(payload['tool_call_id']);
      const progress = num(payload['progress']);
      if (!id || progress === undefined) return state;
      return withTool(state, event, id, undefined, (t) => {
        const p: NonNullable<ToolCard['progress']> = { progress };
        const total = num(payload['total']);
        const message = str(payload['message']);
        if (total !== undefined) p.total = total;
        if (message !== undefined) p.message = message;
        return { ...advance(t, 'running'), progress: p };
      });
    }
    case 'tool/tool_result': {
      const id = str(payload['tool_call_id']);
      const status = str(payload['status']) as ToolResultStatus | undefined;
      if (!id || !status) return state;
      return withTool(state, event, id, undefined, (t) => {
        const card: ToolCard = { ...t, phase: status };
        if ('result' in payload) card.result = payload['result'] ?? null;
        if ('error' in payload) card.error = payload['error'] ?? null;
        const duration = num(payload['duration_ms']);
        if (duration !== undefined) card.durationMs = duration;
        return card;
      });
    }

    case 'workflow/status': {
      const nodeId = str(payload['node_id']);
      const nodeState = str(payload['state']) as WorkflowState | undefined;
      if (!nodeId || !nodeState) return state;
      let s = state;
      if (payload['node_kind'] === 'agent' && s.tools[nodeId]) {
        s = withTool(s, event, nodeId, undefined, (t) => {
          const agent: NonNullable<ToolCard['agent']> = { state: nodeState };
          const turn = num(payload['turn']) ?? t.agent?.turn;
          const maxTurns = num(payload['max_turns']) ?? t.agent?.maxTurns;
          if (turn !== undefined) agent.turn = turn;
          if (maxTurns !== undefined) agent.maxTurns = maxTurns;
          return { ...t, agent };
        });
      }
      return s;
    }
    case 'workflow/graph': {
      const plan = planFromGraph(payload);
      if (!plan) return state;
      // Workflow events carry no message_id: the plan belongs to its run's message.
      const messageId = event.message_id ?? messageOfRun(state, str(event.meta?.run_id));
      if (!messageId) return state;
      return withMessage(state, { ...event, message_id: messageId }, (m) => ({ ...m, plans: withPlan(m.plans, plan) }));
    }

    case 'interaction/form_request': {
      const request = event.payload as FormRequestPayload;
      if (typeof request.form_id !== 'string' || state.closed[request.form_id]) return state;
      return {
        ...state,
        forms: {
          ...state.forms,
          [request.form_id]: { formId: request.form_id, messageId: event.message_id ?? null, runId: str(event.meta?.run_id) ?? null, request },
        },
      };
    }
    case 'interaction/form_result':
    case 'interaction/form_cancel': {
      const formId = str(payload['form_id']);
      if (!formId) return state;
      return closeInteraction(state, formId);
    }
    case 'interaction/consent_request': {
      const request = event.payload as ConsentRequestPayload;
      if (typeof request.consent_id !== 'string' || state.closed[request.consent_id]) return state;
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
    case 'interaction/consent_result': {
      const consentId = str(payload['consent_id']);
      if (!consentId) return state;
      return closeInteraction(state, consentId);
    }

    case 'system/status': {
      const runState = str(payload['state']) as SystemState | undefined;
      if (!runState) return state;
      let s = withRun(state, event, (r) => (r.state === runState ? r : { ...r, state: runState }));
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
    case 'system/error': {
      const error: RunError = {
        code: str(payload['code']) ?? 'ERROR',
        message: str(payload['message']) ?? '',
        retryable: payload['retryable'] === true,
      };
      if (error.retryable) return withMessage(state, event, (m) => ({ ...m, notices: [...m.notices, error] }));
      const s = withRun(state, event, (r) => ({ ...r, fatal: error, state: 'failed' }));
      return withMessage(s, event, (m) => m);
    }
    case 'business/error': {
      const error: RunError = { code: str(payload['code']) ?? 'ERROR', message: str(payload['message']) ?? '', retryable: false };
      return withMessage(state, event, (m) => ({ ...m, notices: [...m.notices, error] }));
    }
    case 'system/done': {
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
      return state;
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

/** What `GET /v1/interactions` says waits (e.g. a form pending when the app opens). */
export interface PendingInteraction {
  interaction_id: string;
  run_id: string | null;
  state: string;
  kind: string;
  request: FormRequestPayload | ConsentRequestPayload;
}

export function withPendingInteractions(state: ChatState, pending: PendingInteraction[]): ChatState {
  let s = state;
  for (const p of pending) {
    const id = p.interaction_id;
    if (p.state !== 'pending' || s.closed[id] || id in s.forms || id in s.consents) continue;
    const messageId = str((p.request as Record<string, unknown>)['message_id']) ?? null;
    if (p.kind === 'form') {
      s = { ...s, forms: { ...s.forms, [id]: { formId: id, messageId, runId: p.run_id, request: p.request as FormRequestPayload } } };
    } else if (p.kind === 'consent') {
      s = { ...s, consents: { ...s.consents, [id]: { consentId: id, messageId, runId: p.run_id, request: p.request as ConsentRequestPayload } } };
    }
  }
  return s;
}
