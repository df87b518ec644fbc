import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

/** What the person said; `children` go under it (controls such as Edit). */
export function UserMessage({ text, error, children }: { text: string; error?: string | undefined; children?: ReactNode }) {
  const { t } = useTranslation();
  return (
    <article className="message message-user" data-testid="user-message">
      <h3 className="message-author">{t('chat.you')}</h3>
      <p className="message-user-text">{text}</p>
      {error && (
        <p className="notice notice-error" role="alert">
          {t('chat.sendFailed', { error })}
        </p>
      )}
      {children}
    </article>
  );
}
