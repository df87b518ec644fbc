import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

/** What the person said; `children` go under it (controls such as Edit). */
export function UserMessage({ text, error, errorCode, children }: { text: string; error?: string | undefined; errorCode?: string | undefined; children?: ReactNode }) {
  const { t, i18n } = useTranslation();
  const known = errorCode !== undefined && i18n.exists(`engineErrors.${errorCode}`);
  return (
    <article className="message message-user" data-testid="user-message">
      <h3 className="message-author">{t('chat.you')}</h3>
      <p className="message-user-text">{text}</p>
      {error && (
        <p className="notice notice-error" role="alert">
          {known ? (
            <>
              {t('chat.sendFailed', { error: t(`engineErrors.${errorCode}` as 'engineErrors.NO_MODEL') })}
              {/* The engine's words for NO_MODEL name command-line flags: not for the app. */}
              {errorCode !== 'NO_MODEL' && (
                <span className="notice-detail" data-testid="engine-detail">
                  {error}
                </span>
              )}
            </>
          ) : (
            t('chat.sendFailed', { error })
          )}
        </p>
      )}
      {children}
    </article>
  );
}
