/**
 * A run started from here and its own event stream, read while it lasts (the follow stream is
 * stopped meanwhile, and takes over once it ends or is cut). The person's new message shows as a
 * local turn until it is stored, with why it could not be sent if it could not.
 */
import { useCallback, type RefObject } from 'react';
import { ApiError, NetworkError, newId, type Attachment, type EventStream } from '../../transport/client';
import { describeError } from '../../transport/describeError';
import type { EventFollow } from './useEventFollow';
import type { SessionCore } from './useSessionStore';
import type { ShownBranch } from './useShownBranch';

/**
 * Starts a run with `open` and reads its stream; `text` is the person's new message shown until
 * it is stored (null: none, a regeneration), `started` what to do once the run has started.
 * Rejects when the run could not start and no message shows why.
 */
export type RunStream = (
  conversationId: string,
  text: string | null,
  open: () => Promise<EventStream>,
  started?: () => void,
  attachments?: Attachment[],
) => Promise<void>;

export interface RunStreamDeps extends Pick<EventFollow, 'onEvent' | 'startFollowing' | 'stopFollowing'> {
  reloadHistory: ShownBranch['reloadHistory'];
  refreshList: () => Promise<void>;
  /** Runs before a message is sent into a conversation (ChatSessionOptions). */
  beforeSendRef: RefObject<((conversationId: string) => Promise<unknown>) | undefined>;
}

export function useRunStream(core: SessionCore, deps: RunStreamDeps): RunStream {
  const { dispatch, generationRef, chatRef, historyRef } = core;
  const { onEvent, startFollowing, stopFollowing, reloadHistory, refreshList, beforeSendRef } = deps;
  return useCallback(
    async (conversationId, text, open, started, attachments) => {
      const gen = generationRef.current;
      const key = newId();
      const files = attachments?.map((a) => a.metadata?.fileName ?? '') ?? [];
      if (text !== null) dispatch({ type: 'turnAdded', turn: { key, text, runId: null, ...(attachments && files.length > 0 ? { files, attachments } : {}) } });
      stopFollowing();
      let sent = false;
      /** Why the run could not start, when no message shows it. */
      let failure: { error: unknown } | null = null;
      try {
        // Front-end tools are announced before a run could call them (a new conversation too).
        await beforeSendRef.current?.(conversationId);
        const stream = await open();
        sent = true;
        started?.();
        if (gen === generationRef.current) dispatch({ type: 'runStarted', key, runId: stream.runId });
        void refreshList();
        for await (const item of stream.events) {
          if (gen !== generationRef.current) break;
          onEvent(item, conversationId, gen);
        }
      } catch (error) {
        if (!sent && gen === generationRef.current) {
          const message = error instanceof NetworkError ? error.message : describeError(error);
          const code = error instanceof ApiError ? error.code : undefined;
          if (text !== null) dispatch({ type: 'turnFailed', key, error: message, code });
          else failure = { error };
        }
        // A stream cut mid-run: the follow stream below picks it up from the last seq.
      } finally {
        if (gen === generationRef.current) {
          dispatch({ type: 'runEnded' });
          if (sent || chatRef.current.lastSeq > 0 || historyRef.current.length > 0) startFollowing(conversationId, gen);
        }
      }
      if (!sent && text !== null && gen === generationRef.current) {
        // The branch may have been cut for a resend that never started: show the stored one again.
        void reloadHistory(conversationId, gen);
        // A conversation stored before its run failed to start belongs in the list too.
        void refreshList();
      }
      if (failure !== null) throw failure.error;
    },
    [beforeSendRef, chatRef, dispatch, generationRef, historyRef, onEvent, refreshList, reloadHistory, startFollowing, stopFollowing],
  );
}
