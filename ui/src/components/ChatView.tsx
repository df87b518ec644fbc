import { ImageInputContext } from './useImageInput';
import type { ReactNode, RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import type { ConnectionState } from '../transport/connection';
import type { PendingFile } from './attachments';
import { Composer } from './Composer';
import { TesseraMark } from './icons';
import type { ImageInput } from '../generated/ImageInput';

export interface ChatViewProps {
  title: string;
  headerControls: ReactNode;
  draft: string;
  onDraftChange: (draft: string) => void;
  connection: ConnectionState;
  /** Why the engine cannot be reached, when `connection` is `error`. */
  connectionError?: string | null | undefined;
  onSend?: ((text: string, files: PendingFile[]) => void) | undefined;
  /** A run is answering: the composer offers Stop. */
  running?: boolean | undefined;
  waiting?: boolean | undefined;
  onStop?: (() => void) | undefined;
  /** The messages; the welcome text when absent. */
  children?: ReactNode;
  /** Shown in the welcome: setting a model up when there is none. */
  setup?: ReactNode;
  /** Under the log (state of the conversation: loading, reconnecting, errors). */
  status?: ReactNode;
  composerRef: RefObject<HTMLTextAreaElement | null>;
  /** The composer's model picker. */
  modelPicker?: ReactNode;
  /** Whether the model that answers next takes images (the composer says so beside a picture). */
  imageInput?: ImageInput | null | undefined;
}

/** The conversation: its title, the message log and the composer. */
export function ChatView({
  title,
  headerControls,
  draft,
  onDraftChange,
  connection,
  connectionError,
  onSend,
  running,
  waiting,
  onStop,
  children,
  setup,
  status,
  composerRef,
  modelPicker,
  imageInput,
}: ChatViewProps) {
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
        <ImageInputContext value={imageInput ?? null}>
          {children ?? (
            <div className="empty-state">
              <TesseraMark size={48} className="empty-state-mark" />
              <h2 className="empty-state-title">{t('chat.welcomeTitle')}</h2>
              <p className="empty-state-body">{t('chat.welcomeBody')}</p>
              {setup}
            </div>
          )}
        </ImageInputContext>
        {status}
      </section>

      <div className="composer-dock">
        <Composer
          draft={draft}
          onDraftChange={onDraftChange}
          connection={connection}
          connectionError={connectionError}
          onSend={onSend}
          running={running}
          waiting={waiting}
          onStop={onStop}
          inputRef={composerRef}
          modelPicker={modelPicker}
          imageInput={imageInput}
        />
      </div>
    </main>
  );
}
