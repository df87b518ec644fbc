import { describe, expect, it } from 'vitest';
import type { Event } from '../generated/Event';
import type { InteractionView } from '../generated/InteractionView';
import { SseParser } from '../transport/sse';
import consent1 from './fixtures/consent1.sse?raw';
import consent2 from './fixtures/consent2.sse?raw';
import formAll from './fixtures/form-all.sse?raw';
import form1 from './fixtures/form1.sse?raw';
import form2 from './fixtures/form2.sse?raw';
import textStream from './fixtures/text.sse?raw';
import { activeRun, closeInteraction, initialChatState, reduce, reduceAll, withPendingInteractions, type ChatState } from './reducer';

// The fixtures are streams recorded from the real `tessera serve` with the scripted provider
// (ui/e2e/scripted.mjs): a streamed answer; a run asking for a form (suspended), then its
// resumption after the answer; the same conversation replayed from the store once the run
// ended (deltas folded); a consent request denied.

function events(sse: string): Event[] {
  const out: Event[] = [];
  const parser = new SseParser((m) => out.push(JSON.parse(m.data) as Event));
  parser.push(sse);
  parser.end();
  return out;
}

function only<T>(record: Record<string, T>): T {
  const values = Object.values(record);
  expect(values).toHaveLength(1);
  return values[0] as T;
}

function textOf(state: ChatState, messageId: string): string {
  return (state.messages[messageId]?.parts ?? [])
    .map((p) => (p.kind === 'text' ? p.text : ''))
    .join('');
}

describe('chat reducer on recorded streams', () => {
  it('streams an answer by message_id and records usage from done', () => {
    const evs = events(textStream);
    const state = reduceAll(initialChatState, evs);
    expect(state.messageOrder).toHaveLength(1);
    const id = state.messageOrder[0] ?? '';
    expect(textOf(state, id)).toBe('Hello **world**\n\n```js\nconsole.log(1)\n```');
    const run = only(state.runs);
    expect(run).toMatchObject({ state: 'completed', done: true, messageId: id });
    expect(state.messages[id]?.usage).toEqual({ promptTokens: 12, completionTokens: 3, latencyMs: 32, firstTokenLatencyMs: 5, costUsd: 0 });
    expect(state.lastSeq).toBe(6);
    expect(activeRun(state)).toBeNull();

    // Mid-stream the run is active and the text is what arrived so far.
    const half = reduceAll(initialChatState, evs.slice(0, 3));
    expect(textOf(half, id)).toBe('Hello **world**');
    expect(activeRun(half)?.state).toBe('running');
  });

  it('is idempotent: the same events again (a reconnect that overlaps) change nothing', () => {
    const evs = events(textStream);
    const once = reduceAll(initialChatState, evs);
    expect(reduceAll(once, evs)).toBe(once);
    for (const e of evs) expect(reduce(once, e)).toBe(once);
    // Overlap in the middle: seqs 1..4, then 3..6.
    const overlapped = reduceAll(reduceAll(initialChatState, evs.slice(0, 4)), evs.slice(2));
    expect(overlapped).toEqual(once);
  });

  it('keeps a form pending until its result, with the tool card and the run suspended', () => {
    const suspended = reduceAll(initialChatState, events(form1));
    const form = only(suspended.forms);
    expect(form.request.title).toBe('Your trip');
    expect(form.request.requester).toEqual({ kind: 'agent', name: 'Assistant' });
    expect(form.request.schema['required']).toEqual(['email', 'nights']);
    expect(activeRun(suspended)?.state).toBe('suspended');
    const card = only(suspended.tools);
    expect(card).toMatchObject({ id: 'call_f', name: 'request_form', phase: 'called' });
    expect(card.arguments).toMatchObject({ title: 'Your trip' });

    const resumed = reduceAll(suspended, events(form2));
    expect(resumed.forms).toEqual({});
    expect(resumed.tools['call_f']).toMatchObject({ phase: 'success', result: { action: 'accept', values: { email: 'a@b.co', nights: 2 } } });
    expect(textOf(resumed, form.messageId ?? '')).toBe('Booked.');
    expect(activeRun(resumed)).toBeNull();
    // The tool card comes before the text in the message.
    expect(resumed.messages[form.messageId ?? '']?.parts.map((p) => p.kind)).toEqual(['tool', 'text']);
  });

  it('replays a finished run from the store (folded deltas) to the same chat', () => {
    const live = reduceAll(reduceAll(initialChatState, events(form1)), events(form2));
    const replayed = reduceAll(initialChatState, events(formAll));
    expect(replayed.messages).toEqual(live.messages);
    expect(replayed.tools).toEqual(live.tools);
    expect(replayed.forms).toEqual({});
    // A client that had seen the live deltas gets the folded event on resuming inside its range.
    const folded = events(formAll).find((e) => e.meta?.['replaces']);
    expect(folded).toBeDefined();
    expect(reduce(live, folded as Event)).toBe(live);
  });

  it('shows a consent request until the decision, then the denied tool', () => {
    const asking = reduceAll(initialChatState, events(consent1));
    const consent = only(asking.consents);
    expect(consent.request).toMatchObject({ tool: 'test_guarded_write', arguments: { ms: 0, tag: 'x' }, touches: ['writes test-tool-log'], risk: 'medium' });
    const after = reduceAll(asking, events(consent2));
    expect(after.consents).toEqual({});
    expect(after.tools['call_g']).toMatchObject({ phase: 'denied', error: { code: 'denied' } });
    expect(textOf(after, consent.messageId ?? '')).toBe('Not written.');
  });
});

// Shapes the engine emits that the scripted provider cannot produce on its own (specialists,
// instruction sets, retries), written as tessera-engine's executor emits them.
function ev(seq: number, domain: string, type: string, payload: object, extra: object = {}): Event {
  return {
    protocol: 'easyflow-chat',
    version: '1.1',
    domain,
    type,
    conversation_id: 'c1',
    message_id: 'm1',
    payload,
    meta: { run_id: 'r1', seq },
    ...extra,
  } as Event;
}

describe('chat reducer on engine shapes', () => {
  it('groups a specialist’s nested calls under its card, with its turn progress', () => {
    const s = reduceAll(initialChatState, [
      ev(1, 'system', 'status', { state: 'running' }),
      ev(2, 'tool', 'tool_call', { tool_call_id: 'call_r', name: 'invoke_researcher', arguments: { question: 'q' } }),
      ev(3, 'tool', 'tool_queued', { tool_call_id: 'call_r', name: 'invoke_researcher', position: 0 }),
      ev(4, 'tool', 'tool_started', { tool_call_id: 'call_r' }),
      ev(5, 'workflow', 'status', { node_id: 'call_r', node_kind: 'agent', state: 'start', turn: 1, max_turns: 4 }),
      ev(6, 'tool', 'tool_call', { tool_call_id: 'call_r/s1', name: 'search_context', arguments: { query: 'x' } }),
      ev(7, 'tool', 'tool_started', { tool_call_id: 'call_r/s1' }),
      ev(8, 'tool', 'tool_progress', { tool_call_id: 'call_r/s1', progress: 1, total: 3, message: 'page 1' }),
      ev(9, 'tool', 'tool_queued', { tool_call_id: 'call_r/s1', name: 'search_context', position: 0 }),
      ev(10, 'tool', 'tool_result', { tool_call_id: 'call_r/s1', status: 'error', error: { code: 'E', message: 'bad' }, duration_ms: 12 }),
      ev(11, 'workflow', 'status', { node_id: 'call_r', node_kind: 'agent', state: 'start', turn: 2, max_turns: 4 }),
    ]);
    expect(s.messages['m1']?.parts).toEqual([{ kind: 'tool', id: 'call_r' }]);
    expect(s.tools['call_r']).toMatchObject({ phase: 'running', children: ['call_r/s1'], agent: { turn: 2, maxTurns: 4, state: 'start' } });
    expect(s.tools['call_r/s1']).toMatchObject({
      parentId: 'call_r',
      // a late tool_queued never undoes tool_started
      phase: 'error',
      progress: { progress: 1, total: 3, message: 'page 1' },
      error: { code: 'E', message: 'bad' },
      durationMs: 12,
    });
  });

  it('keeps an instruction set as a plan (start graph replaced by the end graph), not a round of model calls', () => {
    const s = reduceAll(initialChatState, [
      ev(1, 'workflow', 'graph', { nodes: [{ id: 'call_p', label: 'invoke_planner', state: 'PENDING' }], edges: [] }),
      ev(2, 'workflow', 'graph', {
        nodes: [
          { id: 'call_p/a', label: 'fetch', state: 'PENDING', node_kind: 'instruction' },
          { id: 'call_p/b', label: 'sum', state: 'PENDING', node_kind: 'instruction' },
        ],
        edges: [{ from: 'call_p/a', to: 'call_p/b', kind: 'after' }],
      }),
      ev(3, 'workflow', 'graph', {
        nodes: [
          { id: 'call_p/a', label: 'fetch', state: 'COMPLETED', node_kind: 'instruction' },
          { id: 'call_p/b', label: 'sum', state: 'FAILED', node_kind: 'instruction' },
        ],
        edges: [{ from: 'call_p/a', to: 'call_p/b', kind: 'after' }],
      }),
    ]);
    expect(s.messages['m1']?.plans).toEqual([
      {
        id: 'call_p/a',
        parentId: 'call_p',
        nodes: [
          { id: 'call_p/a', label: 'fetch', state: 'COMPLETED' },
          { id: 'call_p/b', label: 'sum', state: 'FAILED' },
        ],
        edges: [{ from: 'call_p/a', to: 'call_p/b', kind: 'after' }],
      },
    ]);
  });

  it('times thinking from its first delta to its last, live or folded from history', () => {
    const live = reduceAll(initialChatState, [
      ev(1, 'llm', 'thinking', { delta: 'Hm' }, { index: 0, meta: { run_id: 'r1', seq: 1, ts: '2026-11-27T10:00:00.000Z' } }),
      ev(2, 'llm', 'thinking', { delta: 'm.' }, { index: 0, meta: { run_id: 'r1', seq: 2, ts: '2026-11-27T10:00:07.500Z' } }),
    ]);
    expect(live.messages['m1']?.parts[0]).toMatchObject({ kind: 'thinking', text: 'Hmm.', startedMs: Date.parse('2026-11-27T10:00:00Z'), lastMs: Date.parse('2026-11-27T10:00:07.5Z') });
    const folded = reduceAll(initialChatState, [
      ev(1, 'llm', 'thinking', { content: 'Hmm.' }, { index: 0, meta: { run_id: 'r1', seq: 1, ts: '2026-11-27T10:00:07.500Z', started_ts: '2026-11-27T10:00:00.000Z', replaces: { from: 1, to: 2 } } }),
    ]);
    expect(folded.messages['m1']?.parts[0]).toMatchObject({ startedMs: Date.parse('2026-11-27T10:00:00Z'), lastMs: Date.parse('2026-11-27T10:00:07.5Z') });
  });

  it('joins pieces by their block, whatever their index (seed 002: index numbers the pieces)', () => {
    const s = reduceAll(initialChatState, [
      ev(1, 'llm', 'thinking', { delta: 'Hm', block: 0 }, { index: 0 }),
      ev(2, 'llm', 'thinking', { delta: 'm.', block: 0 }, { index: 1 }),
      ev(3, 'llm', 'message', { delta: 'An', block: 1 }, { index: 2 }),
      ev(4, 'llm', 'message', { delta: 'swer', block: 1 }, { index: 3 }),
    ]);
    expect(s.messages['m1']?.parts).toEqual([
      expect.objectContaining({ kind: 'thinking', key: 'thinking:0', text: 'Hmm.' }),
      { kind: 'text', key: 'text:1', text: 'Answer' },
    ]);
  });

  it('tells a recoverable error (retry coming) from a fatal one, and streams thinking apart from text', () => {
    const s = reduceAll(initialChatState, [
      ev(1, 'system', 'status', { state: 'running' }),
      ev(2, 'llm', 'thinking', { delta: 'Let me ' }, { index: 0 }),
      ev(3, 'llm', 'thinking', { delta: 'think.' }, { index: 0 }),
      ev(4, 'system', 'error', { code: 'RATE_LIMITED', message: 'retrying', retryable: true }),
      ev(5, 'llm', 'message', { delta: 'Partial' }, { index: 1 }),
      ev(6, 'system', 'error', { code: 'PROVIDER_ERROR', message: 'gone', retryable: false }),
    ]);
    const m = s.messages['m1'];
    expect(m?.parts).toEqual([
      { kind: 'thinking', key: 'thinking:0', text: 'Let me think.' },
      { kind: 'text', key: 'text:1', text: 'Partial' },
    ]);
    expect(m?.notices).toEqual([{ code: 'RATE_LIMITED', message: 'retrying', retryable: true }]);
    expect(s.runs['r1']).toMatchObject({ state: 'failed', fatal: { code: 'PROVIDER_ERROR', message: 'gone', retryable: false } });
    expect(activeRun(s)).toBeNull();
  });

  it('shows a business refusal that failed the run as why it failed', () => {
    const s = reduceAll(initialChatState, [
      ev(1, 'system', 'status', { state: 'running' }),
      ev(2, 'business', 'error', { code: 'SPENDING_LIMIT_REACHED', message: 'spending limit reached: 0.01 USD' }),
      ev(3, 'system', 'status', { state: 'failed' }),
    ]);
    expect(s.runs['r1']).toMatchObject({ state: 'failed', fatal: { code: 'SPENDING_LIMIT_REACHED', retryable: false } });
    expect(s.messages['m1']?.notices).toEqual([]);
  });

  it('withdraws a form on form_cancel and clears what waits when the run is cancelled', () => {
    const form = { form_id: 'f1', title: 'T', schema: { type: 'object', properties: {} } };
    const consent = { consent_id: 'k1', tool_call_id: 't', tool: 'x', arguments: {}, touches: [], risk: 'low' };
    const a = reduceAll(initialChatState, [ev(1, 'interaction', 'form_request', form), ev(2, 'interaction', 'form_cancel', { form_id: 'f1', reason: 'expired' })]);
    expect(a.forms).toEqual({});
    const b = reduceAll(initialChatState, [ev(1, 'interaction', 'consent_request', consent), ev(2, 'system', 'status', { state: 'suspended' })]);
    expect(Object.keys(b.consents)).toEqual(['k1']);
    const c = reduce(b, ev(3, 'system', 'status', { state: 'cancelled' }));
    expect(c.consents).toEqual({});
    expect(c.runs['r1']?.state).toBe('cancelled');
  });
});

describe('pending interactions from the API', () => {
  const form = { form_id: 'f1', title: 'T', schema: { type: 'object', properties: {} }, message_id: 'm1' };
  it('adds what waits, and never brings back one already answered', () => {
    const listed: InteractionView[] = [
      {
        interaction_id: 'f1',
        conversation_id: 'c1',
        run_id: 'r1',
        state: 'pending',
        answer: null,
        created_at: '2025-01-01T00:00:00Z',
        updated_at: '2025-01-01T00:00:00Z',
        kind: 'form',
        request: form,
      },
    ];
    const s = withPendingInteractions(initialChatState, listed);
    expect(s.forms['f1']).toMatchObject({ formId: 'f1', runId: 'r1', messageId: 'm1', request: { title: 'T' } });
    expect(withPendingInteractions(s, listed)).toBe(s);
    const answered = reduce(s, ev(9, 'interaction', 'form_result', { form_id: 'f1', action: 'decline' }));
    expect(answered.forms).toEqual({});
    expect(withPendingInteractions(answered, listed).forms).toEqual({});
    // A replayed request after its result is not shown again either.
    expect(reduce(closeInteraction(initialChatState, 'f1'), ev(1, 'interaction', 'form_request', form)).forms).toEqual({});
  });
});
