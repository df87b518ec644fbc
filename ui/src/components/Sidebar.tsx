import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ConversationSummary } from '../transport/client';
import { PlusIcon, SearchIcon, TesseraMark } from './icons';

export interface SidebarProps {
  onNewConversation: () => void;
  conversations?: ConversationSummary[] | undefined;
  selectedId?: string | null | undefined;
  onSelect?: ((id: string) => void) | undefined;
  error?: string | null | undefined;
}

/** The conversation list (pinned first, then the most recently updated), filtered by title. */
export function Sidebar({ onNewConversation, conversations = [], selectedId = null, onSelect, error }: SidebarProps) {
  const { t } = useTranslation();
  const [query, setQuery] = useState('');
  const searchId = useId();
  const trimmed = query.trim();
  const needle = trimmed.toLocaleLowerCase();
  const shown = needle ? conversations.filter((c) => c.title.toLocaleLowerCase().includes(needle)) : conversations;

  return (
    <nav className="sidebar" aria-label={t('sidebar.label')} data-testid="sidebar">
      <div className="sidebar-brand">
        <TesseraMark size={26} />
        <span className="sidebar-brand-name">{t('app.name')}</span>
      </div>

      <div className="sidebar-body">
        <button type="button" className="button new-conversation" onClick={onNewConversation}>
          <PlusIcon />
          <span>{t('sidebar.newConversation')}</span>
        </button>

        <div className="search-field">
          <label htmlFor={searchId} className="visually-hidden">
            {t('sidebar.searchLabel')}
          </label>
          <SearchIcon className="search-field-icon" />
          <input
            id={searchId}
            type="search"
            className="search-field-input"
            placeholder={t('sidebar.searchPlaceholder')}
            value={query}
            onChange={(event) => setQuery(event.target.value)}
            autoComplete="off"
            spellCheck={false}
            data-testid="conversation-search"
          />
        </div>

        <div className="conversation-list" data-testid="conversation-list">
          {error && (
            <p className="sidebar-empty" role="alert">
              {t('sidebar.loadFailed', { error })}
            </p>
          )}
          {shown.length > 0 ? (
            <ul className="conversation-items" aria-label={t('sidebar.listLabel')}>
              {shown.map((c) => (
                <li key={c.id}>
                  <button
                    type="button"
                    className="conversation-item"
                    aria-current={c.id === selectedId ? 'page' : undefined}
                    data-testid="conversation-item"
                    data-conversation-id={c.id}
                    onClick={() => onSelect?.(c.id)}
                  >
                    {c.title || t('sidebar.untitled')}
                  </button>
                </li>
              ))}
            </ul>
          ) : trimmed ? (
            <p className="sidebar-empty">{t('sidebar.noMatches', { query: trimmed })}</p>
          ) : (
            <div className="sidebar-empty">
              <p className="sidebar-empty-title">{t('sidebar.empty')}</p>
              <p className="sidebar-empty-hint">{t('sidebar.emptyHint')}</p>
            </div>
          )}
        </div>
      </div>
    </nav>
  );
}
