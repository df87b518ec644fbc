/**
 * The link to the engine and the conversation list: connecting (again, until the engine
 * answers), reading the list again, and reopening the conversation open when the app last closed.
 */
import { useCallback, useEffect } from 'react';
import { localStore, readItem } from '../../storage';
import { ApiError } from '../../transport/client';
import { describeError } from '../../transport/describeError';
import { CONVERSATION_STORAGE_KEY } from './useSelection';
import type { SessionCore } from './useSessionStore';

const CONNECT_RETRY_MS = 3_000;

/** Reads the conversation list again; a failure shows beside the list. */
export function useRefreshList(core: SessionCore): () => Promise<void> {
  const { client, dispatch } = core;
  return useCallback(async () => {
    if (!client) return;
    try {
      dispatch({ type: 'listed', conversations: await client.listConversations() });
    } catch (error) {
      dispatch({ type: 'listFailed', error: describeError(error) });
    }
  }, [client, dispatch]);
}

/**
 * Connects: the conversation list answers (with the token) or says why not; then reopens the
 * conversation open when the app last closed (a reload mid-run picks its stream up), unless it
 * was deleted since: then a new one, as on a first start.
 */
export function useConnect(core: SessionCore, select: (id: string | null) => void): void {
  const { client, dispatch, selectedRef } = core;
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
  }, [client, dispatch, select, selectedRef]);
}
