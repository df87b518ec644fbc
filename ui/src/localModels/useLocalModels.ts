import { useCallback, useEffect, useRef, useState } from 'react';
import type { DownloadPhase } from '../generated/DownloadPhase';
import type { LocalModelsView, SettingsApi } from '../settings/api';
import { messageOf } from '../settings/fields';

/** How often the listing is asked again while a download moves (the engine reports at most every 200 ms). */
export const POLL_MS = 500;

/** A download still moving: its figures change without anyone acting. */
export function isMoving(phase: DownloadPhase): boolean {
  switch (phase) {
    case 'starting':
    case 'checking_partial':
    case 'downloading':
    case 'verifying':
      return true;
    case 'paused':
    case 'failed':
      return false;
    default: {
      // A new phase without its case fails the type check here.
      const unhandled: never = phase;
      return unhandled;
    }
  }
}

/**
 * The models on this machine, asked again every half second while a download moves (and once
 * after each action), so progress shows without an event stream. Polling stops with the
 * component: a hidden page costs nothing.
 */
export function useLocalModels(api: SettingsApi | null) {
  const [view, setView] = useState<LocalModelsView | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const alive = useRef(true);

  const reload = useCallback(async () => {
    if (!api) return null;
    try {
      const next = await api.localModels();
      if (alive.current) {
        setView(next);
        setLoadError(null);
      }
      return next;
    } catch (error) {
      if (alive.current) setLoadError(messageOf(error));
      return null;
    }
  }, [api]);

  useEffect(() => {
    alive.current = true;
    void reload();
    return () => {
      alive.current = false;
    };
  }, [reload]);

  const moving = view?.downloads.some((d) => isMoving(d.phase)) ?? false;
  useEffect(() => {
    if (!moving) return undefined;
    const timer = window.setInterval(() => void reload(), POLL_MS);
    return () => window.clearInterval(timer);
  }, [moving, reload]);

  return { view, loadError, reload };
}
