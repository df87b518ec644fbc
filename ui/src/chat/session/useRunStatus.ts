/** The run under way in the conversation shown, and stopping it. */
import { useCallback } from 'react';
import { activeRun } from '../reducer';
import type { SessionState } from '../sessionState';
import type { SessionCore } from './useSessionStore';

export interface RunStatus {
  /** The run that can be stopped now, if any. */
  runningId: string | null;
  stop: () => Promise<void>;
}

export function useRunStatus(core: SessionCore, state: Pick<SessionState, 'chat' | 'pendingRunId'>): RunStatus {
  const { client } = core;
  // A run whose stream has opened can be stopped before its own events say it runs.
  const runningId = activeRun(state.chat)?.id ?? state.pendingRunId;
  const stop = useCallback(async () => {
    if (!client || !runningId) return;
    await client.cancelRun(runningId);
  }, [client, runningId]);
  return { runningId, stop };
}
