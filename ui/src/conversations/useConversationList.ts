/**
 * What the sidebar does with the conversation list besides showing it: full-text search on the
 * engine (debounced, the newest query wins), the archived view, rename/pin/archive shown at
 * once and kept until the engine's list agrees (undone if the engine refuses), and delete with
 * undo: the conversation is hidden at once and the DELETE goes only after `UNDO_MS`; undone,
 * or the app closed meanwhile, nothing is deleted.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { ApiError, type ConversationEdit, type ConversationSummary, type TesseraClient } from '../transport/client';
import { describeError } from '../transport/describeError';

/** How long a deletion can be undone before it is sent. */
export const UNDO_MS = 8_000;
/** How long typing must pause before a search is sent. */
export const SEARCH_DEBOUNCE_MS = 250;

export type ListView = 'active' | 'archived';

export interface PendingDeletion {
  id: string;
  title: string;
}

/** Something that went wrong with a conversation, to show until dismissed. */
export interface Failure {
  kind: 'change' | 'delete' | 'export';
  title: string;
  error: string;
}

export interface ConversationListOptions {
  client: TesseraClient | null;
  /** Every conversation, archived ones too, as the engine last listed them. */
  conversations: ConversationSummary[];
  selectedId: string | null;
  /** The selected conversation is being deleted: show a new one instead. */
  onDeselect: () => void;
  /** Reads the engine's list again. */
  refresh: () => Promise<void>;
}

export { describeError };

function agrees(row: ConversationSummary, patch: ConversationEdit): boolean {
  return (
    (patch.title === undefined || row.title === patch.title) &&
    (patch.pinned === undefined || row.pinned === patch.pinned) &&
    (patch.archived === undefined || row.archived === patch.archived)
  );
}

export function useConversationList({ client, conversations, selectedId, onDeselect, refresh }: ConversationListOptions) {
  const [query, setQuery] = useState('');
  const [results, setResults] = useState<ConversationSummary[] | null>(null);
  const [searching, setSearching] = useState(false);
  const [searchError, setSearchError] = useState<string | null>(null);
  const [view, setView] = useState<ListView>('active');
  const [pending, setPending] = useState<PendingDeletion[]>([]);
  const [overrides, setOverrides] = useState<Record<string, ConversationEdit>>({});
  const [failure, setFailure] = useState<Failure | null>(null);
  const timers = useRef(new Map<string, ReturnType<typeof setTimeout>>());

  // Search on the engine once typing pauses; a newer query aborts an older one.
  const trimmed = query.trim();
  useEffect(() => {
    if (!trimmed || !client) {
      setResults(null);
      setSearching(false);
      setSearchError(null);
      return;
    }
    const controller = new AbortController();
    setSearching(true);
    const timer = setTimeout(() => {
      client
        .searchConversations(trimmed, controller.signal)
        .then((found) => {
          setResults(found);
          setSearchError(null);
        })
        .catch((err: unknown) => {
          if (controller.signal.aborted) return;
          setSearchError(describeError(err));
        })
        .finally(() => {
          if (!controller.signal.aborted) setSearching(false);
        });
    }, SEARCH_DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [client, trimmed]);

  // An optimistic change is dropped once the engine's list shows it.
  useEffect(() => {
    setOverrides((current) => {
      const kept = Object.entries(current).filter(([id, patch]) => {
        const row = conversations.find((c) => c.id === id);
        return row !== undefined && !agrees(row, patch);
      });
      return kept.length === Object.keys(current).length ? current : Object.fromEntries(kept);
    });
  }, [conversations]);

  // Leaving (closing the app) deletes nothing that waits: the conversation simply stays.
  useEffect(() => {
    const pendingTimers = timers.current;
    return () => {
      for (const timer of pendingTimers.values()) clearTimeout(timer);
      pendingTimers.clear();
    };
  }, []);

  const hidden = useMemo(() => new Set(pending.map((p) => p.id)), [pending]);
  const withOverrides = useCallback((row: ConversationSummary): ConversationSummary => ({ ...row, ...overrides[row.id] }), [overrides]);

  const rows = useMemo(() => {
    const source: ConversationSummary[] = results ?? conversations;
    const shown = source
      .filter((c) => !hidden.has(c.id))
      .map(withOverrides)
      .filter((c) => c.archived === (view === 'archived'));
    // The engine lists pinned first; a pin changed here moves at once (the sort is stable).
    return results ? shown : shown.sort((a, b) => Number(b.pinned) - Number(a.pinned));
  }, [conversations, hidden, results, view, withOverrides]);

  const archivedCount = useMemo(
    () => conversations.filter((c) => !hidden.has(c.id) && withOverrides(c).archived).length,
    [conversations, hidden, withOverrides],
  );

  const titleOf = useCallback(
    (id: string) => {
      const row = conversations.find((c) => c.id === id) ?? results?.find((c) => c.id === id);
      return (row && withOverrides(row).title) || '';
    },
    [conversations, results, withOverrides],
  );

  const change = useCallback(
    async (id: string, patch: ConversationEdit) => {
      if (!client) return;
      const title = titleOf(id);
      setOverrides((current) => ({ ...current, [id]: { ...current[id], ...patch } }));
      try {
        await client.updateConversation(id, patch);
        await refresh();
      } catch (err) {
        setOverrides((current) => {
          const { [id]: _, ...rest } = current;
          return rest;
        });
        setFailure({ kind: 'change', title, error: describeError(err) });
      }
    },
    [client, refresh, titleOf],
  );

  const commitDeletion = useCallback(
    async (id: string, title: string) => {
      timers.current.delete(id);
      if (!client) return;
      try {
        await client.deleteConversation(id);
        await refresh();
      } catch (err) {
        if (!(err instanceof ApiError && err.status === 404)) {
          setFailure({ kind: 'delete', title, error: describeError(err) });
        }
      } finally {
        setPending((current) => current.filter((p) => p.id !== id));
      }
    },
    [client, refresh],
  );

  const remove = useCallback(
    (id: string) => {
      if (timers.current.has(id)) return;
      const title = titleOf(id);
      setPending((current) => [...current, { id, title }]);
      if (id === selectedId) onDeselect();
      timers.current.set(
        id,
        setTimeout(() => void commitDeletion(id, title), UNDO_MS),
      );
    },
    [commitDeletion, onDeselect, selectedId, titleOf],
  );

  const undo = useCallback((id: string) => {
    const timer = timers.current.get(id);
    if (timer === undefined) return;
    clearTimeout(timer);
    timers.current.delete(id);
    setPending((current) => current.filter((p) => p.id !== id));
  }, []);

  return {
    query,
    setQuery,
    searching: searching && trimmed !== '',
    searchError,
    searchActive: trimmed !== '',
    view,
    setView,
    rows,
    archivedCount,
    pending,
    failure,
    setFailure,
    rename: (id: string, title: string) => change(id, { title }),
    setPinned: (id: string, pinned: boolean) => change(id, { pinned }),
    setArchived: (id: string, archived: boolean) => change(id, { archived }),
    remove,
    undo,
    titleOf,
  };
}
