import { useCallback, useEffect, useId, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Overlay } from '../components/Overlay';
import { useModalFocus } from '../components/useModalFocus';
import type { Project } from '../projects/api';
import type { ConversationSummary, TesseraClient } from '../transport/client';
import { MemoriesApi, memoryErrorText, type Memory, type MemoryScope } from './api';
import { MemoryItem, type MemorySource } from './MemoryItem';
import './memory.css';

/** How long the search box waits after the last key before it asks the engine. */
export const SEARCH_DELAY_MS = 300;

export interface MemoryPanelProps {
  client: TesseraClient;
  /** The conversations as the sidebar last listed them, archived ones too: their titles. */
  conversations: ConversationSummary[];
  /** The projects as last listed (null: not yet): their names. */
  projects: Project[] | null;
  /** Opens a conversation (the panel closes first); absent, none can be opened from here. */
  onOpenConversation?: ((id: string) => void) | undefined;
  onClose: () => void;
}

type Filter = 'all' | MemoryScope;
const FILTERS: Filter[] = ['all', 'conversation', 'project', 'everywhere'];

/**
 * What the assistant remembers, as a dialog: every memory (or those of one scope), searched on
 * the engine as the person types, each with where it applies and where it came from, its text
 * edited in place or forgotten.
 */
export function MemoryPanel({ client, conversations, projects, onOpenConversation, onClose }: MemoryPanelProps) {
  const { t } = useTranslation();
  const api = useMemo(() => MemoriesApi.of(client), [client]);
  const ref = useRef<HTMLDivElement | null>(null);
  useModalFocus(ref);
  const titleId = useId();
  const searchId = useId();
  const [filter, setFilter] = useState<Filter>('all');
  const [query, setQuery] = useState('');
  /** The query the list was asked with: `query` once the person stopped typing. */
  const [asked, setAsked] = useState('');
  const [memories, setMemories] = useState<Memory[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [note, setNote] = useState('');
  /** The newest listing asked for; an older answer arriving late is dropped. */
  const latest = useRef(0);

  useEffect(() => {
    if (query === asked) return;
    const timer = setTimeout(() => setAsked(query), SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [query, asked]);

  const load = useCallback(async () => {
    const n = ++latest.current;
    try {
      const listed = await api.list(filter === 'all' ? null : filter, asked);
      if (n !== latest.current) return;
      setMemories(listed);
      setLoadError(null);
    } catch (err) {
      if (n !== latest.current) return;
      setLoadError(memoryErrorText(t, err));
    }
  }, [api, filter, asked, t]);

  useEffect(() => {
    void load();
  }, [load]);

  const projectName = (id: string | null) => (id === null ? null : (projects?.find((p) => p.id === id)?.name ?? null));
  const sourceOf = (memory: Memory): MemorySource | null => {
    const id = memory.source_conversation_id;
    if (id === null) return null;
    const conversation = conversations.find((c) => c.id === id);
    if (!conversation) return { title: null };
    const title = conversation.title || t('sidebar.untitled');
    return {
      title,
      open: onOpenConversation
        ? () => {
            onClose();
            onOpenConversation(id);
          }
        : undefined,
    };
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      onClose();
    }
  };

  const searching = query.trim() !== '';
  const filterLabel = (f: Filter) =>
    f === 'all' ? t('memory.filterAll') : f === 'conversation' ? t('memory.filterConversation') : f === 'project' ? t('memory.filterProject') : t('memory.filterEverywhere');

  return (
    <Overlay>
      <div className="dialog-backdrop" onClick={(e) => e.target === e.currentTarget && onClose()}>
        <div ref={ref} className="dialog memory-panel" role="dialog" aria-modal="true" aria-labelledby={titleId} tabIndex={-1} onKeyDown={onKeyDown} data-testid="memory-panel">
          <div className="projects-header">
            <h2 id={titleId} className="dialog-title">
              {t('memory.title')}
            </h2>
            <button type="button" className="button button-secondary button-small" onClick={onClose}>
              {t('memory.close')}
            </button>
          </div>
          <p className="memory-hint">{t('memory.intro')}</p>

          <div className="memory-tools">
            <label htmlFor={searchId} className="visually-hidden">
              {t('memory.search')}
            </label>
            <input
              id={searchId}
              type="search"
              className="memory-search"
              value={query}
              placeholder={t('memory.searchPlaceholder')}
              autoComplete="off"
              onChange={(e) => setQuery(e.target.value)}
              data-testid="memory-search"
            />
            <div className="memory-filters" role="group" aria-label={t('memory.filterLabel')}>
              {FILTERS.map((f) => (
                <button
                  key={f}
                  type="button"
                  className="button button-secondary button-small memory-filter"
                  aria-pressed={filter === f}
                  onClick={() => setFilter(f)}
                  data-testid={`memory-filter-${f}`}
                >
                  {filterLabel(f)}
                </button>
              ))}
            </div>
          </div>

          {loadError && (
            <p className="notice notice-error" role="alert" data-testid="memory-load-error">
              {t('memory.loadFailed', { error: loadError })}
            </p>
          )}
          {memories === null && !loadError ? (
            <p role="status">{t('memory.loading')}</p>
          ) : memories && memories.length === 0 ? (
            <p className="memory-hint" data-testid="memory-empty">
              {searching ? t('memory.noMatch') : filter === 'all' ? t('memory.none') : t('memory.noneOfScope', { scope: filterLabel(filter) })}
            </p>
          ) : (
            <ul className="memory-list" aria-label={t('memory.listLabel')} data-testid="memory-list">
              {memories?.map((m) => (
                <MemoryItem
                  key={m.id}
                  api={api}
                  memory={m}
                  projectName={projectName(m.project_id)}
                  source={sourceOf(m)}
                  onEdited={(changed) => {
                    setMemories((list) => list?.map((x) => (x.id === changed.id ? changed : x)) ?? list);
                    setNote(t('memory.saved'));
                  }}
                  onForgotten={(gone) => {
                    setMemories((list) => list?.filter((x) => x.id !== gone.id) ?? list);
                    setNote(t('memory.forgotten'));
                    // Its buttons are gone with it: the keyboard stays in the panel.
                    ref.current?.focus();
                  }}
                />
              ))}
            </ul>
          )}
          <p className="visually-hidden" role="status" aria-live="polite" data-testid="memory-note">
            {note}
          </p>
        </div>
      </div>
    </Overlay>
  );
}
