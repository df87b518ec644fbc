/**
 * Which conversation is shown. Selecting one drops all of the one before (its stream, its chat,
 * its branch, a model picked for it), reads the new one's stored branch and what waits in it,
 * then follows its events. The choice is remembered, so the app reopens it next time.
 */
import { useCallback } from 'react';
import { localStore, writeItem } from '../../storage';
import { ApiError } from '../../transport/client';
import { describeError } from '../../transport/describeError';
import { initialChatState, withPendingInteractions } from '../reducer';
import type { ChatDrawing } from './useChatDrawing';
import type { EventFollow } from './useEventFollow';
import type { SessionCore } from './useSessionStore';
import type { ShownBranch } from './useShownBranch';

export const CONVERSATION_STORAGE_KEY = 'tessera.conversation';

export interface SelectionDeps {
  draw: ChatDrawing['draw'];
  showDetail: ShownBranch['showDetail'];
  startFollowing: EventFollow['startFollowing'];
  stopFollowing: EventFollow['stopFollowing'];
  refreshList: () => Promise<void>;
}

/** Shows conversation `id` (null: a new one). */
export function useSelection(core: SessionCore, { draw, showDetail, startFollowing, stopFollowing, refreshList }: SelectionDeps): (id: string | null) => void {
  const { client, dispatch, selectedRef, generationRef, chatRef, historyRef, modelChangeRef } = core;
  return useCallback(
    (id: string | null) => {
      generationRef.current += 1;
      const gen = generationRef.current;
      stopFollowing();
      // The one left may have come to wait for the person meanwhile: the list says it again.
      if (selectedRef.current !== null) void refreshList();
      selectedRef.current = id;
      writeItem(localStore(), CONVERSATION_STORAGE_KEY, id ?? '');
      chatRef.current = initialChatState;
      historyRef.current = [];
      modelChangeRef.current = undefined;
      const loading = id !== null && id !== '' && client !== null;
      dispatch({ type: 'selected', id, loading });
      if (!loading) return;
      void (async () => {
        try {
          const [detail, pending] = await Promise.all([client.getConversation(id), client.listInteractions(id)]);
          if (gen !== generationRef.current) return;
          showDetail(detail);
          draw(withPendingInteractions(chatRef.current, pending));
          startFollowing(id, gen);
        } catch (error) {
          if (gen !== generationRef.current) return;
          if (error instanceof ApiError && error.status === 404) {
            // Gone (deleted elsewhere): back to a new conversation.
            selectedRef.current = null;
            dispatch({ type: 'gone' });
            writeItem(localStore(), CONVERSATION_STORAGE_KEY, '');
          } else {
            dispatch({ type: 'loadFailed', error: describeError(error) });
          }
        } finally {
          if (gen === generationRef.current) dispatch({ type: 'loaded' });
        }
      })();
    },
    [chatRef, client, dispatch, draw, generationRef, historyRef, modelChangeRef, refreshList, selectedRef, showDetail, startFollowing, stopFollowing],
  );
}
