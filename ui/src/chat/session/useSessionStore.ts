/**
 * The chat session's state (sessionState.ts) and the refs its async work reads. A stream, a
 * selection's reads and a resend run between renders, when the state has not caught up yet: the
 * selection, the folded chat, the stored branch and a model picked are also kept here, current
 * at once, and every part of the session (useChatSession.ts) reads them through `SessionCore`.
 */
import { useMemo, useReducer, useRef, type Dispatch, type RefObject } from 'react';
import type { ConversationModel, StoredMessage, TesseraClient } from '../../transport/client';
import { initialChatState, type ChatState } from '../reducer';
import { initialSessionState, sessionReducer, type SessionAction, type SessionState } from '../sessionState';

/** The same object from render to render while the client is the same: callbacks built on it stay. */
export interface SessionCore {
  client: TesseraClient | null;
  dispatch: Dispatch<SessionAction>;
  /** The conversation shown (null: a new one not sent yet). */
  selectedRef: RefObject<string | null>;
  /** Bumped on every selection: async work of an older selection drops its results. */
  generationRef: RefObject<number>;
  /** The chat folded from the events so far, drawn or not. */
  chatRef: RefObject<ChatState>;
  /** The stored branch shown, as the state will have it. */
  historyRef: RefObject<StoredMessage[]>;
  /** A pick not sent yet (undefined: none; null: back to the default provider's). */
  modelChangeRef: RefObject<ConversationModel | null | undefined>;
}

export function useSessionStore(client: TesseraClient | null): { state: SessionState; core: SessionCore } {
  const [state, dispatch] = useReducer(sessionReducer, client !== null, initialSessionState);
  const selectedRef = useRef<string | null>(null);
  const generationRef = useRef(0);
  const chatRef = useRef<ChatState>(initialChatState);
  const historyRef = useRef<StoredMessage[]>([]);
  const modelChangeRef = useRef<ConversationModel | null | undefined>(undefined);
  const core = useMemo(
    () => ({ client, dispatch, selectedRef, generationRef, chatRef, historyRef, modelChangeRef }),
    [client],
  );
  return { state, core };
}
