import { describe, expect, it } from 'vitest';
import type { ConversationSummary, StoredMessage } from '../transport/client';
import { initialChatState, type ChatState, type RunInfo } from './reducer';
import { initialSessionState, sessionReducer, type BranchDetail, type SessionAction, type SessionState } from './sessionState';

function apply(state: SessionState, ...actions: SessionAction[]): SessionState {
  return actions.reduce(sessionReducer, state);
}

function message(id: string, parent: string | null = null): StoredMessage {
  return { id, conversation_id: 'c1', parent_id: parent, depth: 0, message: {} as StoredMessage['message'] };
}

function branch(ids: string[], extra: Partial<BranchDetail> = {}): BranchDetail {
  return { messages: ids.map((id, i) => message(id, ids[i - 1] ?? null)), siblings: {}, off_branch: [], ...extra };
}

function run(id: string, done: boolean): RunInfo {
  return { id, messageId: `m_${id}`, state: done ? 'completed' : 'running', done };
}

const listed = [{ id: 'c1', title: 'Trip' }] as ConversationSummary[];
const connected = apply(initialSessionState(true), { type: 'connected', conversations: listed });

describe('the chat session state', () => {
  it('starts connecting with an engine to talk to, disconnected without one', () => {
    expect(initialSessionState(true).connection).toBe('connecting');
    expect(initialSessionState(false).connection).toBe('disconnected');
  });

  it('says why it could not connect until it connects, and lists the conversations then', () => {
    const refused = apply(initialSessionState(true), { type: 'connectFailed', error: 'token' });
    expect([refused.connection, refused.connectionError]).toEqual(['error', 'token']);
    const retried = apply(refused, { type: 'connecting' }, { type: 'connected', conversations: listed });
    expect([retried.connection, retried.connectionError, retried.conversations]).toEqual(['connected', null, listed]);
  });

  it('shows a message at once, is busy from the moment its run starts, and free when it ends', () => {
    const turn = { key: 'k1', text: 'Hello', runId: null };
    const sending = apply(connected, { type: 'created', id: 'c2' }, { type: 'turnAdded', turn });
    expect(sending.selectedId).toBe('c2');
    expect(sending.localTurns).toEqual([turn]);
    expect(sending.pendingRunId).toBeNull();

    const running = apply(sending, { type: 'runStarted', key: 'k1', runId: 'r1' });
    expect(running.pendingRunId).toBe('r1');
    expect(running.localTurns).toEqual([{ ...turn, runId: 'r1' }]);

    expect(apply(running, { type: 'runEnded' }).pendingRunId).toBeNull();
  });

  it('keeps a message that could not be sent with the reason, until it is sent again', () => {
    const failed = apply(
      connected,
      { type: 'turnAdded', turn: { key: 'k1', text: 'Hello', runId: null } },
      { type: 'turnFailed', key: 'k1', error: 'no model is set up', code: 'NO_MODEL' },
    );
    expect(failed.localTurns).toEqual([{ key: 'k1', text: 'Hello', runId: null, error: 'no model is set up', errorCode: 'NO_MODEL' }]);
    // Without a code from the engine, no empty one.
    const uncoded = apply(connected, { type: 'turnAdded', turn: { key: 'k2', text: 'Hi', runId: null } }, { type: 'turnFailed', key: 'k2', error: 'offline', code: undefined });
    expect(uncoded.localTurns[0]).not.toHaveProperty('errorCode');
    expect(apply(failed, { type: 'turnRemoved', key: 'k1' }).localTurns).toEqual([]);
  });

  it('once the stored messages are read again, drops the turns whose run ended and keeps the others', () => {
    const turns = apply(
      connected,
      { type: 'turnAdded', turn: { key: 'done', text: 'a', runId: 'r1' } },
      { type: 'turnAdded', turn: { key: 'running', text: 'b', runId: 'r2' } },
      { type: 'turnAdded', turn: { key: 'waiting', text: 'c', runId: null } },
      { type: 'turnAdded', turn: { key: 'failed', text: 'd', runId: 'r3', error: 'boom' } },
      { type: 'loadFailed', error: 'timed out' },
    );
    const runs = { r1: run('r1', true), r2: run('r2', false), r3: run('r3', true) };
    const reloaded = apply(turns, { type: 'historyReloaded', detail: branch(['u1', 'a1']), keepModel: false, runs });
    expect(reloaded.localTurns.map((t) => t.key)).toEqual(['running', 'waiting', 'failed']);
    expect(reloaded.history.map((m) => m.id)).toEqual(['u1', 'a1']);
    expect(reloaded.loadError).toBeNull();
  });

  it('keeps a model picked and not sent yet over the conversation’s own', () => {
    const stored = branch(['u1'], { model: { provider: 'openai', model: 'gpt-5' } });
    const picked = apply(connected, { type: 'modelChosen', model: { provider: 'deepseek', model: 'deepseek-chat' } });
    expect(apply(picked, { type: 'branchShown', detail: stored, keepModel: true }).model).toEqual({ provider: 'deepseek', model: 'deepseek-chat' });
    expect(apply(picked, { type: 'branchShown', detail: stored, keepModel: false }).model).toEqual({ provider: 'openai', model: 'gpt-5' });
    expect(apply(picked, { type: 'branchShown', detail: branch(['u1']), keepModel: false }).model).toBeNull();
  });

  it('cuts the branch shown before a message answered again: what follows leaves the branch', () => {
    const shown = apply(connected, { type: 'branchShown', detail: branch(['u1', 'a1', 'u2', 'a2'], { off_branch: ['old'] }), keepModel: false });
    const cut = apply(shown, { type: 'branchCut', history: shown.history.slice(0, 2), dropped: ['u2', 'a2'] });
    expect(cut.history.map((m) => m.id)).toEqual(['u1', 'a1']);
    expect([...cut.offBranch].sort()).toEqual(['a2', 'old', 'u2']);
  });

  it('switching conversation leaves nothing of the old one, and keeps the connection and the list', () => {
    const chat: ChatState = { ...initialChatState, lastSeq: 7 };
    const busy = apply(
      connected,
      { type: 'selected', id: 'c1', loading: true },
      { type: 'branchShown', detail: branch(['u1', 'a1'], { siblings: { a1: ['a0', 'a1'] }, off_branch: ['a0'], model: { provider: 'openai', model: 'gpt-5' } }), keepModel: false },
      { type: 'loaded' },
      { type: 'chatDrawn', chat },
      { type: 'turnAdded', turn: { key: 'k1', text: 'Hello', runId: null } },
      { type: 'runStarted', key: 'k1', runId: 'r1' },
      { type: 'loadFailed', error: 'timed out' },
    );
    expect(busy.loading).toBe(false);

    const other = apply(busy, { type: 'selected', id: 'c9', loading: true });
    expect(other).toMatchObject({
      selectedId: 'c9',
      loading: true,
      chat: initialChatState,
      history: [],
      siblings: {},
      model: null,
      localTurns: [],
      loadError: null,
      pendingRunId: null,
      connection: 'connected',
      conversations: listed,
    });
    expect(other.offBranch.size).toBe(0);
    // A new conversation has nothing to read.
    expect(apply(busy, { type: 'selected', id: null, loading: false })).toMatchObject({ selectedId: null, loading: false });
  });

  it('goes back to a new conversation when the one shown was deleted elsewhere', () => {
    const shown = apply(connected, { type: 'selected', id: 'c1', loading: true }, { type: 'gone' }, { type: 'loaded' });
    expect([shown.selectedId, shown.loading]).toEqual([null, false]);
  });

  it('answers an action that changes nothing with the same state, so nothing is drawn again', () => {
    expect(apply(connected, { type: 'reconnecting', reconnecting: false })).toBe(connected);
    expect(apply(connected, { type: 'chatDrawn', chat: connected.chat })).toBe(connected);
    expect(apply(connected, { type: 'runEnded' }, { type: 'loaded' })).toBe(connected);
    const lost = apply(connected, { type: 'reconnecting', reconnecting: true });
    expect(lost).not.toBe(connected);
    expect(lost.reconnecting).toBe(true);
  });

  it('refuses an action it does not know', () => {
    expect(() => sessionReducer(connected, { type: 'teleport' } as unknown as SessionAction)).toThrow('unknown session action');
  });
});
