/**
 * The chat session's state (useChatSession.ts) as one value with a pure reducer: the link to
 * the engine, the conversation list, and the conversation shown with all that belongs to it
 * (its stored branch, the chat folded from its events, the messages on their way, the run just
 * started, the model for the next message).
 *
 * Not reducer.ts, which folds the engine's events into `chat`: here `chat` arrives whole. The
 * hook folds and paces events in a ref of its own (what async code reads must be current at
 * once) and hands the state the chat to draw; the stored branch is kept the same way.
 */
import type { ApiErrorCode } from '../transport/client';
import type { ConversationDetail, Attachment, ConversationModel, ConversationSummary, StoredMessage } from '../transport/client';
import type { ConnectionState } from '../transport/connection';
import { initialChatState, type ChatState } from './reducer';

export interface LocalTurn {
  key: string;
  text: string;
  runId: string | null;
  /** Why it was not sent. */
  error?: string;
  /** The engine's error code, when it gave one (the UI says what it means). */
  errorCode?: ApiErrorCode;
  /** The names of the files sent with it. */
  files?: string[];
  /** What was attached, kept until it is sent (to send it again). */
  attachments?: Attachment[];
}

/** The part of a stored conversation that says which branch is shown. */
export type BranchDetail = Pick<ConversationDetail, 'messages' | 'siblings' | 'off_branch' | 'model'>;

export interface SessionState {
  connection: ConnectionState;
  connectionError: string | null;
  conversations: ConversationSummary[];
  listError: string | null;
  selectedId: string | null;
  history: StoredMessage[];
  /** Where the branch shown branches: each shown message's siblings (ids, itself included). */
  siblings: Record<string, string[]>;
  /** Messages of the conversation not on the branch shown (their events are not shown). */
  offBranch: ReadonlySet<string>;
  loading: boolean;
  loadError: string | null;
  chat: ChatState;
  localTurns: LocalTurn[];
  reconnecting: boolean;
  /** A run whose stream has opened, before its own events say it is running. */
  pendingRunId: string | null;
  /** The provider and model the next message goes to; null: the default provider's. */
  model: ConversationModel | null;
}

export type SessionAction =
  | { type: 'connecting' }
  | { type: 'connected'; conversations: ConversationSummary[] }
  | { type: 'connectFailed'; error: string }
  | { type: 'disconnected' }
  | { type: 'listed'; conversations: ConversationSummary[] }
  | { type: 'listFailed'; error: string }
  /** Another conversation shown (null: a new one); `loading` while its stored messages are read. */
  | { type: 'selected'; id: string | null; loading: boolean }
  /** A first message names the new conversation it starts. */
  | { type: 'created'; id: string }
  /** The conversation shown was deleted elsewhere: back to a new one. */
  | { type: 'gone' }
  | { type: 'loaded' }
  | { type: 'loadFailed'; error: string }
  /** `keepModel`: a model picked and not sent yet stays picked. */
  | { type: 'branchShown'; detail: BranchDetail; keepModel: boolean }
  /** The stored messages read again after a run: the turns whose run ended are among them now. */
  | { type: 'historyReloaded'; detail: BranchDetail; keepModel: boolean; runs: ChatState['runs'] }
  /** Shown cut before a message being answered again; `dropped` leaves the branch shown. */
  | { type: 'branchCut'; history: StoredMessage[]; dropped: string[] }
  | { type: 'chatDrawn'; chat: ChatState }
  | { type: 'turnAdded'; turn: LocalTurn }
  | { type: 'turnFailed'; key: string; error: string; code: ApiErrorCode | undefined }
  | { type: 'turnRemoved'; key: string }
  /** A run's stream opened; `key` is the turn it answers, if any. */
  | { type: 'runStarted'; key: string; runId: string | null }
  | { type: 'runEnded' }
  | { type: 'reconnecting'; reconnecting: boolean }
  | { type: 'modelChosen'; model: ConversationModel | null };

export function initialSessionState(hasClient: boolean): SessionState {
  return {
    connection: hasClient ? 'connecting' : 'disconnected',
    connectionError: null,
    conversations: [],
    listError: null,
    selectedId: null,
    history: [],
    siblings: {},
    offBranch: new Set(),
    loading: false,
    loadError: null,
    chat: initialChatState,
    localTurns: [],
    reconnecting: false,
    pendingRunId: null,
    model: null,
  };
}

/** `state` itself when nothing changes: as a state set to its own value, nothing is drawn again. */
function patch(state: SessionState, changes: Partial<SessionState>): SessionState {
  for (const key of Object.keys(changes) as (keyof SessionState)[]) {
    if (!Object.is(state[key], changes[key])) return { ...state, ...changes };
  }
  return state;
}

function withBranch(state: SessionState, detail: BranchDetail, keepModel: boolean): SessionState {
  return {
    ...state,
    history: detail.messages,
    siblings: detail.siblings,
    offBranch: new Set(detail.off_branch),
    model: keepModel ? state.model : (detail.model ?? null),
  };
}

export function sessionReducer(state: SessionState, action: SessionAction): SessionState {
  switch (action.type) {
    case 'connecting':
      return patch(state, { connection: 'connecting' });
    case 'connected':
      return patch(state, { conversations: action.conversations, connection: 'connected', connectionError: null });
    case 'connectFailed':
      return patch(state, { connection: 'error', connectionError: action.error });
    case 'disconnected':
      return patch(state, { connection: 'disconnected' });
    case 'listed':
      return patch(state, { conversations: action.conversations, listError: null });
    case 'listFailed':
      return patch(state, { listError: action.error });
    case 'selected':
      // Nothing of the conversation shown before stays: not its messages, turns, run or model.
      return {
        ...state,
        selectedId: action.id,
        chat: initialChatState,
        history: [],
        siblings: {},
        offBranch: new Set(),
        model: null,
        localTurns: [],
        loadError: null,
        pendingRunId: null,
        loading: action.loading,
      };
    case 'created':
      return patch(state, { selectedId: action.id });
    case 'gone':
      return patch(state, { selectedId: null });
    case 'loaded':
      return patch(state, { loading: false });
    case 'loadFailed':
      return patch(state, { loadError: action.error });
    case 'branchShown':
      return withBranch(state, action.detail, action.keepModel);
    case 'historyReloaded': {
      const { runs } = action;
      // A turn that failed, or whose run has not started or not ended, is not stored yet.
      const localTurns = state.localTurns.filter((t) => t.error !== undefined || t.runId === null || !runs[t.runId]?.done);
      return { ...withBranch(state, action.detail, action.keepModel), localTurns, loadError: null };
    }
    case 'branchCut':
      return { ...state, history: action.history, offBranch: new Set([...state.offBranch, ...action.dropped]) };
    case 'chatDrawn':
      return patch(state, { chat: action.chat });
    case 'turnAdded':
      return { ...state, localTurns: [...state.localTurns, action.turn] };
    case 'turnFailed': {
      const { key, error, code } = action;
      return { ...state, localTurns: state.localTurns.map((t) => (t.key === key ? { ...t, error, ...(code ? { errorCode: code } : {}) } : t)) };
    }
    case 'turnRemoved':
      return { ...state, localTurns: state.localTurns.filter((t) => t.key !== action.key) };
    case 'runStarted': {
      const { key, runId } = action;
      return { ...state, pendingRunId: runId, localTurns: state.localTurns.map((t) => (t.key === key ? { ...t, runId } : t)) };
    }
    case 'runEnded':
      return patch(state, { pendingRunId: null });
    case 'reconnecting':
      return patch(state, { reconnecting: action.reconnecting });
    case 'modelChosen':
      return patch(state, { model: action.model });
    default: {
      // A new action without its case fails the type check here.
      const unhandled: never = action;
      throw new Error(`unknown session action: ${JSON.stringify(unhandled)}`);
    }
  }
}
