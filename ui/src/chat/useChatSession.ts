/**
 * The app's link to the engine: connection, the conversation list, the selected conversation
 * (its stored messages, its events followed live, what waits for the person), sending, stopping
 * and answering. Each concern is a hook of `session/`; this one puts them together and hands the
 * view one object.
 *
 * What it shows is one state (sessionState.ts). What async work reads between renders is kept
 * in refs beside it (session/useSessionStore.ts), since the state has not caught up yet then.
 */
import type { Answer, Attachment, ConversationModel, TesseraClient } from '../transport/client';
import type { LocalTurn, SessionState } from './sessionState';
import { useChatDrawing } from './session/useChatDrawing';
import { useConnect, useRefreshList } from './session/useConnection';
import { useEventFollow } from './session/useEventFollow';
import { useAnswer } from './session/useInteractions';
import { useRunStatus } from './session/useRunStatus';
import { useRunStream } from './session/useRunStream';
import { useSelection } from './session/useSelection';
import { useOptionRefs, useSending, type ChatSessionOptions } from './session/useSending';
import { useSessionStore } from './session/useSessionStore';
import { useShownBranch } from './session/useShownBranch';

export { CONVERSATION_STORAGE_KEY } from './session/useSelection';
export type { ChatSessionOptions, LocalTurn };

/**
 * The session's state as the view reads it (the reducer's, less its bookkeeping of a run whose
 * stream has opened), and what the view can do.
 */
export interface ChatSession extends Omit<SessionState, 'pendingRunId'> {
  /** The run that can be stopped now, if any. */
  runningId: string | null;
  /** Picks the model for the next message and, once it is sent, the conversation's from then on. */
  chooseModel: (model: ConversationModel | null) => void;
  select: (id: string | null) => void;
  send: (text: string, attachments?: Attachment[]) => Promise<void>;
  /** Resends the shown message `messageId` as `text`, on a new branch (a failure shows on the turn, as for `send`). */
  editAndResend: (messageId: string, text: string) => Promise<void>;
  /** Answers again what the shown answer `messageId` answered; rejects when it could not start. */
  regenerate: (messageId: string) => Promise<void>;
  /** Sends again a message that could not be sent (its local turn `key`), in its place. */
  resend: (key: string) => Promise<void>;
  /** Answers again what a failed answer `messageId` answered (the last message, when that answer was not kept). */
  retry: (messageId: string) => Promise<void>;
  /** Shows the branch through `messageId`. */
  switchBranch: (messageId: string) => Promise<void>;
  /** Reads the conversation list again. */
  refreshList: () => Promise<void>;
  stop: () => Promise<void>;
  answer: (interactionId: string, answer: Answer) => Promise<void>;
}

export function useChatSession(client: TesseraClient | null, options: ChatSessionOptions = {}): ChatSession {
  const optionRefs = useOptionRefs(options);
  const { state, core } = useSessionStore(client);
  const { draw, drawSoon } = useChatDrawing(core);
  const refreshList = useRefreshList(core);
  const { showDetail, cutHistory, reloadHistory, switchBranch } = useShownBranch(core);
  const { onEvent, startFollowing, stopFollowing } = useEventFollow(core, { drawSoon, reloadHistory, refreshList });
  const select = useSelection(core, { draw, showDetail, startFollowing, stopFollowing, refreshList });
  useConnect(core, select);
  const runStream = useRunStream(core, { onEvent, startFollowing, stopFollowing, reloadHistory, refreshList, beforeSendRef: optionRefs.beforeSendRef });
  const { send, editAndResend, regenerate, resend, retry, chooseModel } = useSending(core, { runStream, cutHistory, localTurns: state.localTurns, optionRefs });
  const { runningId, stop } = useRunStatus(core, state);
  const answer = useAnswer(core, draw);

  return {
    connection: state.connection,
    connectionError: state.connectionError,
    conversations: state.conversations,
    listError: state.listError,
    selectedId: state.selectedId,
    history: state.history,
    loading: state.loading,
    loadError: state.loadError,
    chat: state.chat,
    localTurns: state.localTurns,
    reconnecting: state.reconnecting,
    runningId,
    model: state.model,
    chooseModel,
    siblings: state.siblings,
    offBranch: state.offBranch,
    select,
    send,
    editAndResend,
    regenerate,
    resend,
    retry,
    switchBranch,
    refreshList,
    stop,
    answer,
  };
}
