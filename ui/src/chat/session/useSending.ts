/**
 * What the person sends: a message (into a new conversation too), a message edited and sent
 * again on a new branch, an answer asked again, a message that could not be sent sent again, and
 * the model the next message goes to.
 */
import { useCallback, useLayoutEffect, useRef } from 'react';
import { localStore, writeItem } from '../../storage';
import { newId, type Attachment, type ConversationModel } from '../../transport/client';
import type { LocalTurn } from '../sessionState';
import { CONVERSATION_STORAGE_KEY } from './useSelection';
import type { SessionCore } from './useSessionStore';
import type { ShownBranch } from './useShownBranch';
import type { RunStream, RunStreamDeps } from './useRunStream';

export interface ChatSessionOptions {
  /** Runs before a message is sent into a conversation (new or not), e.g. to announce the window's front-end tools. */
  beforeSend?: ((conversationId: string) => Promise<unknown>) | undefined;
  /** A new conversation's first message was accepted: the conversation now exists on the engine. */
  onCreated?: ((conversationId: string) => void) | undefined;
  /** The project (id) a new conversation starts in, asked when its first message is sent. */
  projectForNew?: (() => string | undefined) | undefined;
}

/**
 * The options as refs: a caller's new functions at each render neither rebuild the session's
 * callbacks nor restart what depends on them. Set before anything can be sent, and never from a
 * render React may throw away.
 */
export function useOptionRefs(options: ChatSessionOptions) {
  const beforeSendRef: RunStreamDeps['beforeSendRef'] = useRef(options.beforeSend);
  const onCreatedRef = useRef(options.onCreated);
  const projectForNewRef = useRef(options.projectForNew);
  useLayoutEffect(() => {
    beforeSendRef.current = options.beforeSend;
    onCreatedRef.current = options.onCreated;
    projectForNewRef.current = options.projectForNew;
  }, [options.beforeSend, options.onCreated, options.projectForNew]);
  return { beforeSendRef, onCreatedRef, projectForNewRef };
}

export interface Sending {
  send: (text: string, attachments?: Attachment[]) => Promise<void>;
  editAndResend: (messageId: string, text: string) => Promise<void>;
  regenerate: (messageId: string) => Promise<void>;
  resend: (key: string) => Promise<void>;
  retry: (messageId: string) => Promise<void>;
  chooseModel: (model: ConversationModel | null) => void;
}

export interface SendingDeps {
  runStream: RunStream;
  cutHistory: ShownBranch['cutHistory'];
  /** The messages shown on their way, as the state has them (resend finds its turn there). */
  localTurns: LocalTurn[];
  optionRefs: ReturnType<typeof useOptionRefs>;
}

export function useSending(core: SessionCore, { runStream, cutHistory, localTurns, optionRefs }: SendingDeps): Sending {
  const { client, dispatch, selectedRef, generationRef, chatRef, historyRef, modelChangeRef } = core;
  const { onCreatedRef, projectForNewRef } = optionRefs;

  const send = useCallback(
    async (text: string, attachments: Attachment[] = []) => {
      if (!client) return;
      let conversationId = selectedRef.current;
      const isNew = !conversationId;
      if (!conversationId) {
        // A new conversation, under a new id.
        conversationId = newId();
        generationRef.current += 1;
        selectedRef.current = conversationId;
        dispatch({ type: 'created', id: conversationId });
        writeItem(localStore(), CONVERSATION_STORAGE_KEY, conversationId);
      }
      const id = conversationId;
      const change = modelChangeRef.current;
      const started = isNew ? () => onCreatedRef.current?.(id) : undefined;
      const project = isNew ? projectForNewRef.current?.() : undefined;
      await runStream(id, text, () => client.sendUserInput(id, text, undefined, undefined, change, attachments, project), started, attachments);
      // A model picked while this was being sent is still to be sent.
      if (modelChangeRef.current === change) modelChangeRef.current = undefined;
    },
    [client, dispatch, generationRef, modelChangeRef, onCreatedRef, projectForNewRef, runStream, selectedRef],
  );

  const editAndResend = useCallback(
    async (messageId: string, text: string) => {
      const conversationId = selectedRef.current;
      const edited = historyRef.current.find((m) => m.id === messageId);
      if (!client || !conversationId || !edited) return;
      cutHistory(messageId);
      const change = modelChangeRef.current;
      await runStream(conversationId, text, () => client.sendUserInput(conversationId, text, undefined, edited.parent_id, change));
      if (modelChangeRef.current === change) modelChangeRef.current = undefined;
    },
    [client, cutHistory, historyRef, modelChangeRef, runStream, selectedRef],
  );

  const regenerate = useCallback(
    async (messageId: string) => {
      const conversationId = selectedRef.current;
      if (!client || !conversationId) return;
      await runStream(conversationId, null, () => client.regenerate(conversationId, messageId), () => cutHistory(messageId));
    },
    [client, cutHistory, runStream, selectedRef],
  );

  const resend = useCallback(
    async (key: string) => {
      const turn = localTurns.find((t) => t.key === key);
      if (!turn || !client) return;
      dispatch({ type: 'turnRemoved', key });
      await send(turn.text, turn.attachments ?? []);
    },
    [client, dispatch, localTurns, send],
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
    [chatRef, client, cutHistory, historyRef, runStream, selectedRef],
  );

  const chooseModel = useCallback(
    (pick: ConversationModel | null) => {
      modelChangeRef.current = pick;
      dispatch({ type: 'modelChosen', model: pick });
    },
    [dispatch, modelChangeRef],
  );

  return { send, editAndResend, regenerate, resend, retry, chooseModel };
}
