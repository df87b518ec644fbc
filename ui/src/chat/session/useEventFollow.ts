/**
 * The conversation's events as they come: each folded into the chat, and between runs
 * `GET …/events` followed from the last seq seen. One stream feeds the chat at a time: while a
 * message is being answered, its run's own stream (useRunStream.ts) stops this one and starts it
 * again once it ends.
 */
import { useCallback, useEffect, useRef } from 'react';
import { ApiError, isAbort, type StreamEvent } from '../../transport/client';
import { reduce } from '../reducer';
import type { ChatDrawing } from './useChatDrawing';
import { forgetDraftOfClosedForm } from './useInteractions';
import type { SessionCore } from './useSessionStore';
import type { ShownBranch } from './useShownBranch';

const FOLLOW_RETRY_MIN_MS = 500;
const FOLLOW_RETRY_MAX_MS = 5_000;

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

export interface EventFollow {
  /** Folds one streamed event of `conversationId` in, unless selection `generation` is over. */
  onEvent: (item: StreamEvent, conversationId: string, generation: number) => void;
  /** Follows the conversation's stored and live events from the last seq seen, again after a cut. */
  startFollowing: (conversationId: string, generation: number) => void;
  stopFollowing: () => void;
}

export interface EventFollowDeps {
  drawSoon: ChatDrawing['drawSoon'];
  reloadHistory: ShownBranch['reloadHistory'];
  refreshList: () => Promise<void>;
}

export function useEventFollow(core: SessionCore, { drawSoon, reloadHistory, refreshList }: EventFollowDeps): EventFollow {
  const { client, dispatch, generationRef, chatRef } = core;
  const followAbortRef = useRef<AbortController | null>(null);

  const onEvent = useCallback(
    (item: StreamEvent, conversationId: string, gen: number) => {
      if (gen !== generationRef.current || item.event.conversation_id !== conversationId) return;
      drawSoon(reduce(chatRef.current, item.event, item.seq));
      forgetDraftOfClosedForm(item.event);
      // A run's end refreshes the stored messages and the list.
      if (item.name === 'done' || item.name === 'error') {
        dispatch({ type: 'chatDrawn', chat: chatRef.current }); // the run's end is drawn before the stored messages replace it
        void reloadHistory(conversationId, gen);
        void refreshList();
      }
    },
    [chatRef, dispatch, drawSoon, generationRef, refreshList, reloadHistory],
  );

  const stopFollowing = useCallback(() => {
    followAbortRef.current?.abort();
    followAbortRef.current = null;
    dispatch({ type: 'reconnecting', reconnecting: false });
  }, [dispatch]);

  const startFollowing = useCallback(
    (conversationId: string, gen: number) => {
      if (!client) return;
      stopFollowing();
      const controller = new AbortController();
      followAbortRef.current = controller;
      const { signal } = controller;
      void (async () => {
        let delay = FOLLOW_RETRY_MIN_MS;
        while (!signal.aborted && gen === generationRef.current) {
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
    [chatRef, client, dispatch, generationRef, onEvent, stopFollowing],
  );

  useEffect(() => () => followAbortRef.current?.abort(), []);

  return { onEvent, startFollowing, stopFollowing };
}
