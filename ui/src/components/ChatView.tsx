import type { ReactNode, RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import type { ConnectionState } from '../transport/connection';
import { Composer } from './Composer';
import { TesseraMark } from './icons';

export interface ChatViewProps {
  title: string;
  headerControls: ReactNode;
  draft: string;
  onDraftChange: (draft: string) => void;
  connection: ConnectionState;
  onSend?: ((text: string) => void) | undefined;
  composerRef: RefObject<HTMLTextAreaElement | null>;
}

/** The conversation: its title, the message log and the composer. */
export function ChatView({ title, headerControls, draft, onDraftChange, connection, onSend, composerRef }: ChatViewProps) {
  const { t } = useTranslation();

  return (
    <main className="chat" data-testid="chat" aria-labelledby="chat-title">
      <header className="chat-header">
        <h1 id="chat-title" className="chat-title">
          {title}
        </h1>
        {headerControls}
      </header>

      <section
        className="message-list"
        role="log"
        aria-label={t('chat.messagesLabel')}
        aria-live="polite"
        data-testid="message-list"
      >
        <div className="empty-state">
          <TesseraMark size={48} className="empty-state-mark" />
          <h2 className="empty-state-title">{t('chat.welcomeTitle')}</h2>
          <p className="empty-state-body">{t('chat.welcomeBody')}</p>
        </div>
      </section>

      <div className="composer-dock">
        <Composer
          draft={draft}
          onDraftChange={onDraftChange}
          connection={connection}
          onSend={onSend}
          inputRef={composerRef}
        />
      </div>
    </main>
  );
}
