import { useState } from 'react';
import type { SettingsApi } from '../settings/api';
import { messageOf } from '../settings/fields';
import type { DownloadActions } from './DownloadProgress';

/**
 * One action on the local models at a time: `busy` while it runs, its failure in `problem`,
 * `note` (when given) once it succeeded, and the listing asked again after it either way.
 */
export function useLocalActions(api: SettingsApi | null, reload: () => Promise<unknown>) {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);

  /** Runs `action`; true when it succeeded. */
  const act = async (action: () => Promise<unknown>, done?: string): Promise<boolean> => {
    setBusy(true);
    setProblem(null);
    setNote(null);
    try {
      await action();
      if (done) setNote(done);
      return true;
    } catch (error) {
      setProblem(messageOf(error));
      return false;
    } finally {
      setBusy(false);
      void reload();
    }
  };

  /** Pause, resume and cancel of a download; `cancelled` says what a cancel did. */
  const downloadActions = (cancelled?: (file: string, keptPartial: boolean) => string): DownloadActions | null =>
    api && {
      pause: (file) => void act(() => api.pauseDownload(file)),
      resume: (file) => void act(() => api.resumeDownload(file)),
      cancel: (file, keepPartial) => void act(() => api.cancelDownload(file, keepPartial), cancelled?.(file, keepPartial)),
    };

  return { busy, problem, note, act, downloadActions };
}
