/**
 * The app's link to the engine: connection, the conversation list, the selected conversation
 * (its stored messages, its events followed live, what waits for the person), sending, stopping
 * and answering. One event stream feeds the reducer at a time: the run's own stream while a
 * message is being answered, otherwise `GET …/events` resumed from the last seq seen.
 *
 * What it shows is one state (sessionState.ts). The folded chat, the stored branch and the
 * selection are also kept in refs: async work reads them between renders, when the state has
 * not caught up yet.
 */
import { useCallback, useEffect, useLayoutEffect, useReducer, useRef } from 'react';
import {
  ApiError,
  NetworkError,
  isAbort,
  newId,
  type ConversationModel,
  type Attachment,
  type EventStream,
  type Answer,
  type StoredMessage,
  type StreamEvent,
  type TesseraClient,
} from '../transport/client';
import { localStore, readItem, writeItem } from '../storage';
import { clearFormDraft } from './forms/formDrafts';
import { activeRun, closeInteraction, initialChatState, reduce, withPendingInteractions, type ChatState } from './reducer';
import { markdownClient } from './components/markdownClient';
import { createDrawPacer } from './drawPacer';
import { initialSessionState, sessionReducer, type BranchDetail, type LocalTurn, type SessionState } from './sessionState';
import { describeError } from '../transport/describeError';

export const CONVERSATION_STORAGE_KEY = 'tessera.conversation';

export type { LocalTurn };

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


function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

const FOLLOW_RETRY_MIN_MS = 500;
const FOLLOW_RETRY_MAX_MS = 5_000;
const CONNECT_RETRY_MS = 3_000;

export interface ChatSessionOptions {
  /** Runs before a message is sent into a conversation (new or not), e.g. to announce the window's front-end tools. */
  beforeSend?: ((conversationId: string) => Promise<unknown>) | undefined;
  /** A new conversation's first message was accepted: the conversation now exists on the engine. */
  onCreated?: ((conversationId: string) => void) | undefined;
  /** The project (id) a new conversation starts in, asked when its first message is sent. */
  projectForNew?: (() => string | undefined) | undefined;
}

export function useChatSession(client: TesseraClient | null, options: ChatSessionOptions = {}): ChatSession {
  const beforeSend = useRef(options.beforeSend);
  // Before anything can be sent, and never from a render React may throw away.
  const onCreated = useRef(options.onCreated);
  const projectForNew = useRef(options.projectForNew);
  useLayoutEffect(() => {
    beforeSend.current = options.beforeSend;
    onCreated.current = options.onCreated;
    projectForNew.current = options.projectForNew;
  }, [options.beforeSend, options.onCreated, options.projectForNew]);
  const [state, dispatch] = useReducer(sessionReducer, client !== null, initialSessionState);
  /** The stored branch shown, as the state will have it: read by async work between renders. */
  const historyRef = useRef<StoredMessage[]>([]);
  /** A pick not sent yet (undefined: none; null: back to the default provider's). */
  const modelChange = useRef<ConversationModel | null | undefined>(undefined);

  const chatRef = useRef<ChatState>(initialChatState);
  const selectedRef = useRef<string | null>(null);
  /** Bumped on every selection: async work of an older selection drops its results. */
  const generation = useRef(0);
  const followAbort = useRef<AbortController | null>(null);

  /**
   * Draws what streamed events changed (`drawPacer.ts`); the Markdown parses that came since the
   * last drawing are handed to their blocks in the same render (markdownClient.ts, `drawnWith`).
   */
  const pacer = useRef<ReturnType<typeof createDrawPacer> | null>(null);
  useEffect(() => markdownClient().drawnWith(() => pacer.current?.due() ?? false), []);

  const setChatState = useCallback((next: ChatState) => {
    if (next === chatRef.current) return;
    chatRef.current = next;
    dispatch({ type: 'chatDrawn', chat: next });
  }, []);

  /**
   * Streamed events: folded into `chatRef` at once (what the code reads is always current), drawn
   * as `drawPacer.ts` paces them.
   */
  const setChatStateSoon = useCallback((next: ChatState) => {
    if (next === chatRef.current) return;
    chatRef.current = next;
    pacer.current ??= createDrawPacer(() => {
      dispatch({ type: 'chatDrawn', chat: chatRef.current });
      markdownClient().deliverHeld();
    });
    pacer.current.request();
  }, []);

  /** The stored branch shown and where it branches; a model picked and not sent yet stays. */
  const showDetail = useCallback((detail: BranchDetail) => {
    historyRef.current = detail.messages;
    dispatch({ type: 'branchShown', detail, keepModel: modelChange.current !== undefined });
  }, []);

  /** Shows the branch cut before message `id` at once (a resend or regeneration is on its way). */
  const cutHistory = useCallback((id: string) => {
    const index = historyRef.current.findIndex((m) => m.id === id);
    if (index < 0) return;
    const kept = historyRef.current.slice(0, index);
    const dropped = historyRef.current.slice(index).map((m) => m.id);
    historyRef.current = kept;
    dispatch({ type: 'branchCut', history: kept, dropped });
  }, []);

  const refreshList = useCallback(async () => {
    if (!client) return;
    try {
      dispatch({ type: 'listed', conversations: await client.listConversations() });
    } catch (error) {
      dispatch({ type: 'listFailed', error: describeError(error) });
    }
  }, [client]);

  const reloadHistory = useCallback(
    async (id: string, gen: number) => {
      if (!client) return;
      try {
        const detail = await client.getConversation(id);
        if (gen !== generation.current) return;
        historyRef.current = detail.messages;
        dispatch({ type: 'historyReloaded', detail, keepModel: modelChange.current !== undefined, runs: chatRef.current.runs });
      } catch (error) {
        if (gen !== generation.current) return;
        if (error instanceof ApiError && error.status === 404) return; // not stored yet
        dispatch({ type: 'loadFailed', error: describeError(error) });
      }
    },
    [client],
  );

  /** Folds one streamed event in; a run's end refreshes the stored messages and the list. */
  const onEvent = useCallback(
    (item: StreamEvent, conversationId: string, gen: number) => {
      if (gen !== generation.current || item.event.conversation_id !== conversationId) return;
      setChatStateSoon(reduce(chatRef.current, item.event, item.seq));
      // A form closed another way than its card (the run stopped, answered elsewhere) leaves no draft.
      if (item.event.domain === 'interaction' && (item.event.type === 'form_result' || item.event.type === 'form_cancel')) {
        clearFormDraft(item.event.payload.form_id);
      }
      if (item.name === 'done' || item.name === 'error') {
        dispatch({ type: 'chatDrawn', chat: chatRef.current }); // the run's end is drawn before the stored messages replace it
        void reloadHistory(conversationId, gen);
        void refreshList();
      }
    },
    [refreshList, reloadHistory, setChatStateSoon],
  );

  const stopFollowing = useCallback(() => {
    followAbort.current?.abort();
    followAbort.current = null;
    dispatch({ type: 'reconnecting', reconnecting: false });
  }, []);

  const startFollowing = useCallback(
    (conversationId: string, gen: number) => {
      if (!client) return;
      stopFollowing();
      const controller = new AbortController();
      followAbort.current = controller;
      const { signal } = controller;
      void (async () => {
        let delay = FOLLOW_RETRY_MIN_MS;
        while (!signal.aborted && gen === generation.current) {
          let sawDone = false;
          try {
            const after = chatRef.current.lastSeq > 0 ? chatRef.current.lastSeq : null;
            const stream = await client.followEvents(conversationId, after, signal);
            dispatch({ type: 'reconnecting', reconnecting: false });
            for await (const item of stream.events) {
              onEvent(item, conversationId, gen);
              delay = FOLLOW_RETRY_MIN_MS;
              if (item.name === 'done' || item.name === 'error') sawDone = true;
            }
          } catch (error) {
            if (isAbort(error) || signal.aborted) return;
            if (error instanceof ApiError && (error.status === 404 || error.status === 401)) return;
            dispatch({ type: 'reconnecting', reconnecting: true });
          }
          if (signal.aborted) return;
          // A run's stream ends at its done: follow the next one at once. Anything else: back off.
          if (!sawDone) {
            await sleep(delay, signal);
            delay = Math.min(delay * 2, FOLLOW_RETRY_MAX_MS);
          }
        }
      })();
    },
    [client, onEvent, stopFollowing],
  );

  const select = useCallback(
    (id: string | null) => {
      generation.current += 1;
      const gen = generation.current;
      stopFollowing();
      // The one left may have come to wait for the person meanwhile: the list says it again.
      if (selectedRef.current !== null) void refreshList();
      selectedRef.current = id;
      writeItem(localStore(), CONVERSATION_STORAGE_KEY, id ?? '');
      chatRef.current = initialChatState;
      historyRef.current = [];
      modelChange.current = undefined;
      const loading = id !== null && id !== '' && client !== null;
      dispatch({ type: 'selected', id, loading });
      if (!loading) return;
      void (async () => {
        try {
          const [detail, pending] = await Promise.all([client.getConversation(id), client.listInteractions(id)]);
          if (gen !== generation.current) return;
          showDetail(detail);
          setChatState(withPendingInteractions(chatRef.current, pending));
          startFollowing(id, gen);
        } catch (error) {
          if (gen !== generation.current) return;
          if (error instanceof ApiError && error.status === 404) {
            // Gone (deleted elsewhere): back to a new conversation.
            selectedRef.current = null;
            dispatch({ type: 'gone' });
            writeItem(localStore(), CONVERSATION_STORAGE_KEY, '');
          } else {
            dispatch({ type: 'loadFailed', error: describeError(error) });
          }
        } finally {
          if (gen === generation.current) dispatch({ type: 'loaded' });
        }
      })();
    },
    [client, refreshList, setChatState, showDetail, startFollowing, stopFollowing],
  );

  // Connect: the conversation list answers (with the token) or says why not; then reopen the
  // conversation open when the app last closed (a reload mid-run picks its stream up), unless
  // it was deleted since: then a new one, as on a first start.
  useEffect(() => {
    if (!client) {
      dispatch({ type: 'disconnected' });
      return;
    }
    let cancelled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const attempt = async () => {
      dispatch({ type: 'connecting' });
      try {
        const list = await client.listConversations();
        if (cancelled) return;
        dispatch({ type: 'connected', conversations: list });
        const remembered = readItem(localStore(), CONVERSATION_STORAGE_KEY);
        if (remembered && selectedRef.current === null && list.some((c) => c.id === remembered)) select(remembered);
      } catch (error) {
        if (cancelled) return;
        if (error instanceof ApiError && error.status === 401) {
          dispatch({ type: 'connectFailed', error: 'token' });
          return; // retrying cannot help
        }
        dispatch({ type: 'connectFailed', error: describeError(error) });
        timer = setTimeout(() => void attempt(), CONNECT_RETRY_MS);
      }
    };
    void attempt();
    return () => {
      cancelled = true;
      if (timer) clearTimeout(timer);
    };
  }, [client, select]);

  useEffect(() => () => followAbort.current?.abort(), []);

  /**
   * Starts a run with `open` and reads its stream; `text` is the person's new message shown
   * until it is stored (null: none, a regeneration), `started` what to do once the run has
   * started. Rejects when the run could not start and no message shows why.
   */
  const runStream = useCallback(
    async (conversationId: string, text: string | null, open: () => Promise<EventStream>, started?: () => void, attachments?: Attachment[]) => {
      const gen = generation.current;
      const key = newId();
      const files = attachments?.map((a) => a.metadata?.fileName ?? '') ?? [];
      if (text !== null) dispatch({ type: 'turnAdded', turn: { key, text, runId: null, ...(attachments && files.length > 0 ? { files, attachments } : {}) } });
      stopFollowing();
      let sent = false;
      /** Why the run could not start, when no message shows it. */
      let failure: { error: unknown } | null = null;
      try {
        // Front-end tools are announced before a run could call them (a new conversation too).
        await beforeSend.current?.(conversationId);
        const stream = await open();
        sent = true;
        started?.();
        if (gen === generation.current) dispatch({ type: 'runStarted', key, runId: stream.runId });
        void refreshList();
        for await (const item of stream.events) {
          if (gen !== generation.current) break;
          onEvent(item, conversationId, gen);
        }
      } catch (error) {
        if (!sent && gen === generation.current) {
          const message = error instanceof NetworkError ? error.message : describeError(error);
          const code = error instanceof ApiError ? error.code : undefined;
          if (text !== null) dispatch({ type: 'turnFailed', key, error: message, code });
          else failure = { error };
        }
        // A stream cut mid-run: the follow stream below picks it up from the last seq.
      } finally {
        if (gen === generation.current) {
          dispatch({ type: 'runEnded' });
          if (sent || chatRef.current.lastSeq > 0 || historyRef.current.length > 0) startFollowing(conversationId, gen);
        }
      }
      if (!sent && text !== null && gen === generation.current) {
        // The branch may have been cut for a resend that never started: show the stored one again.
        void reloadHistory(conversationId, gen);
        // A conversation stored before its run failed to start belongs in the list too.
        void refreshList();
      }
      if (failure !== null) throw failure.error;
    },
    [onEvent, refreshList, reloadHistory, startFollowing, stopFollowing],
  );

  const send = useCallback(
    async (text: string, attachments: Attachment[] = []) => {
      if (!client) return;
      let conversationId = selectedRef.current;
      const isNew = !conversationId;
      if (!conversationId) {
        // A new conversation, under a new id.
        conversationId = newId();
        generation.current += 1;
        selectedRef.current = conversationId;
        dispatch({ type: 'created', id: conversationId });
        writeItem(localStore(), CONVERSATION_STORAGE_KEY, conversationId);
      }
      const id = conversationId;
      const change = modelChange.current;
      const started = isNew ? () => onCreated.current?.(id) : undefined;
      const project = isNew ? projectForNew.current?.() : undefined;
      await runStream(id, text, () => client.sendUserInput(id, text, undefined, undefined, change, attachments, project), started, attachments);
      if (modelChange.current === change) modelChange.current = undefined;
    },
    [client, runStream],
  );

  const editAndResend = useCallback(
    async (messageId: string, text: string) => {
      const conversationId = selectedRef.current;
      const edited = historyRef.current.find((m) => m.id === messageId);
      if (!client || !conversationId || !edited) return;
      cutHistory(messageId);
      const change = modelChange.current;
      await runStream(conversationId, text, () => client.sendUserInput(conversationId, text, undefined, edited.parent_id, change));
      if (modelChange.current === change) modelChange.current = undefined;
    },
    [client, cutHistory, runStream],
  );

  const regenerate = useCallback(
    async (messageId: string) => {
      const conversationId = selectedRef.current;
      if (!client || !conversationId) return;
      await runStream(
        conversationId,
        null,
        () => client.regenerate(conversationId, messageId),
        () => cutHistory(messageId),
      );
    },
    [client, cutHistory, runStream],
  );

  const resend = useCallback(
    async (key: string) => {
      const turn = state.localTurns.find((t) => t.key === key);
      if (!turn || !client) return;
      dispatch({ type: 'turnRemoved', key });
      await send(turn.text, turn.attachments ?? []);
    },
    [client, state.localTurns, send],
  );

  const retry = useCallback(
    async (messageId: string) => {
      const conversationId = selectedRef.current;
      if (!client || !conversationId) return;
      const kept = historyRef.current.some((m) => m.id === messageId);
      // An answer that failed before anything was kept is not stored: its run named the
      // question it answered (an older server did not: then the branch's last message).
      const runId = chatRef.current.messages[messageId]?.runId;
      const question = runId ? chatRef.current.runs[runId]?.question : undefined;
      await runStream(
        conversationId,
        null,
        () => client.regenerate(conversationId, kept ? messageId : question),
        () => {
          if (kept) cutHistory(messageId);
        },
      );
    },
    [client, cutHistory, runStream],
  );

  const switchBranch = useCallback(
    async (messageId: string) => {
      const conversationId = selectedRef.current;
      if (!client || !conversationId) return;
      const gen = generation.current;
      const detail = await client.switchBranch(conversationId, messageId);
      if (gen === generation.current) showDetail(detail);
    },
    [client, showDetail],
  );

  const chooseModel = useCallback((pick: ConversationModel | null) => {
    modelChange.current = pick;
    dispatch({ type: 'modelChosen', model: pick });
  }, []);

  const active = activeRun(state.chat);
  const runningId = active?.id ?? state.pendingRunId;

  const stop = useCallback(async () => {
    if (!client || !runningId) return;
    await client.cancelRun(runningId);
  }, [client, runningId]);

  const answer = useCallback(
    async (interactionId: string, value: Answer) => {
      if (!client) return;
      await client.answerInteraction(interactionId, value);
      setChatState(closeInteraction(chatRef.current, interactionId));
    },
    [client, setChatState],
  );

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
