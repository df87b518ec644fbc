/**
 * The stored branch shown: shown whole from a read of the conversation, cut at once before a
 * message answered again (its new answer is on its way), read again when a run ends, switched
 * to another branch.
 */
import { useCallback } from 'react';
import { ApiError } from '../../transport/client';
import { describeError } from '../../transport/describeError';
import type { BranchDetail } from '../sessionState';
import type { SessionCore } from './useSessionStore';

export interface ShownBranch {
  /** Shows the stored branch and where it branches; a model picked and not sent yet stays. */
  showDetail: (detail: BranchDetail) => void;
  /** Shows the branch cut before message `id`. */
  cutHistory: (id: string) => void;
  /** Reads the conversation again for selection `generation` (a run ended, or never started). */
  reloadHistory: (id: string, generation: number) => Promise<void>;
  /** Shows the branch through `messageId`. */
  switchBranch: (messageId: string) => Promise<void>;
}

export function useShownBranch(core: SessionCore): ShownBranch {
  const { client, dispatch, selectedRef, generationRef, chatRef, historyRef, modelChangeRef } = core;

  const showDetail = useCallback(
    (detail: BranchDetail) => {
      historyRef.current = detail.messages;
      dispatch({ type: 'branchShown', detail, keepModel: modelChangeRef.current !== undefined });
    },
    [dispatch, historyRef, modelChangeRef],
  );

  const cutHistory = useCallback(
    (id: string) => {
      const index = historyRef.current.findIndex((m) => m.id === id);
      if (index < 0) return;
      const kept = historyRef.current.slice(0, index);
      const dropped = historyRef.current.slice(index).map((m) => m.id);
      historyRef.current = kept;
      dispatch({ type: 'branchCut', history: kept, dropped });
    },
    [dispatch, historyRef],
  );

  const reloadHistory = useCallback(
    async (id: string, gen: number) => {
      if (!client) return;
      try {
        const detail = await client.getConversation(id);
        if (gen !== generationRef.current) return;
        historyRef.current = detail.messages;
        dispatch({ type: 'historyReloaded', detail, keepModel: modelChangeRef.current !== undefined, runs: chatRef.current.runs });
      } catch (error) {
        if (gen !== generationRef.current) return;
        if (error instanceof ApiError && error.status === 404) return; // not stored yet
        dispatch({ type: 'loadFailed', error: describeError(error) });
      }
    },
    [chatRef, client, dispatch, generationRef, historyRef, modelChangeRef],
  );

  const switchBranch = useCallback(
    async (messageId: string) => {
      const conversationId = selectedRef.current;
      if (!client || !conversationId) return;
      const gen = generationRef.current;
      const detail = await client.switchBranch(conversationId, messageId);
      if (gen === generationRef.current) showDetail(detail);
    },
    [client, generationRef, selectedRef, showDetail],
  );

  return { showDetail, cutHistory, reloadHistory, switchBranch };
}
