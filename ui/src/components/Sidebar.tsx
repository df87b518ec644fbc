import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PlusIcon, SearchIcon, TesseraMark } from './icons';

export interface SidebarProps {
  onNewConversation: () => void;
}

/** The conversation list. Empty at this stage: nothing is stored yet. */
export function Sidebar({ onNewConversation }: SidebarProps) {
  const { t } = useTranslation();
  const [query, setQuery] = useState('');
  const searchId = useId();
  const trimmed = query.trim();

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
          {trimmed ? (
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
