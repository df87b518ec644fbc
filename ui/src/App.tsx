import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ChatView } from './components/ChatView';
import { LanguageSelect, ThemeSelect } from './components/Settings';
import { Sidebar } from './components/Sidebar';
import { applyTheme, readThemeChoice, saveThemeChoice, type ThemeChoice } from './theme';
import type { ConnectionState } from './transport/connection';

export interface AppProps {
  /** No engine is connected to the UI yet: the default is the honest `disconnected`. */
  connection?: ConnectionState;
  onSend?: (text: string) => void;
}

export function App({ connection = 'disconnected', onSend }: AppProps) {
  const { t } = useTranslation();
  const [draft, setDraft] = useState('');
  const [theme, setTheme] = useState<ThemeChoice>(() => readThemeChoice());
  const composerRef = useRef<HTMLTextAreaElement | null>(null);

  useEffect(() => {
    applyTheme(theme);
  }, [theme]);

  useEffect(() => {
    document.title = t('app.name');
  }, [t]);

  const focusComposer = () => composerRef.current?.focus();

  const startNewConversation = () => {
    setDraft('');
    focusComposer();
  };

  return (
    <div className="app-shell" data-testid="app-shell">
      <a
        className="skip-link"
        href="#composer-input"
        onClick={(event) => {
          // Focus without touching the URL fragment.
          event.preventDefault();
          focusComposer();
        }}
      >
        {t('app.skipToComposer')}
      </a>
      <Sidebar onNewConversation={startNewConversation} />
      <ChatView
        title={t('chat.newConversationTitle')}
        headerControls={
          <div className="header-controls" role="group" aria-label={t('settings.label')}>
            <LanguageSelect />
            <ThemeSelect
              value={theme}
              onChange={(choice) => {
                saveThemeChoice(choice);
                setTheme(choice);
              }}
            />
          </div>
        }
        draft={draft}
        onDraftChange={setDraft}
        connection={connection}
        onSend={onSend}
        composerRef={composerRef}
      />
    </div>
  );
}
