import type { ReactNode } from 'react';
import type { ApiErrorCode } from '../../transport/client';
import { useTranslation } from 'react-i18next';
import { sizeLabel } from '../../components/attachments';
import { useOpenSettings } from '../../settings/openSettings';
import type { MessageAttachment } from '../../generated/MessageAttachment';
import type { StoredMessage } from '../../generated/StoredMessage';
import { ToolImageThumb } from './ToolImages';
import { isEngineErrorCode, isWordedApiErrorCode } from '../../i18n/errorCodes';

const SHA256 = /^[0-9a-f]{64}$/;
const KINDS = ['image', 'text', 'pdf', 'audio', 'video', 'file'] as const;

/** The attachments a stored message lists (the engine's `attachments`), the malformed left out. */
export function attachmentsOf(message: StoredMessage['message']): MessageAttachment[] {
  const list = (message as unknown as { attachments?: unknown }).attachments;
  if (!Array.isArray(list)) return [];
  return list.flatMap((item: unknown) => {
    if (!item || typeof item !== 'object') return [];
    const a = item as Partial<MessageAttachment>;
    if (typeof a.sha256 !== 'string' || !SHA256.test(a.sha256) || typeof a.name !== 'string' || typeof a.mime_type !== 'string') return [];
    if (typeof a.size !== 'number' || !KINDS.includes(a.kind as (typeof KINDS)[number])) return [];
    return [a as MessageAttachment];
  });
}

/** What was sent with the message: images as thumbnails that open larger, other files by name. */
function Attached({ attachments, files }: { attachments: MessageAttachment[]; files: string[] }) {
  const { t } = useTranslation();
  if (attachments.length === 0 && files.length === 0) return null;
  return (
    <ul className="message-files" aria-label={t('composer.attached')} data-testid="message-files">
      {attachments.map((a) =>
        a.kind === 'image' ? (
          <li key={a.sha256} className="message-file message-file-image">
            <ToolImageThumb image={{ sha256: a.sha256, mime_type: a.mime_type, ...(a.width ? { width: a.width } : {}), ...(a.height ? { height: a.height } : {}), name: a.name }} alt={a.name} />
          </li>
        ) : (
          <li key={a.sha256} className="message-file" data-testid="message-file">
            <span className="message-file-name">{a.name}</span>
            <span className="message-file-size">{sizeLabel(a.size)}</span>
          </li>
        ),
      )}
      {files.map((name, i) => (
        <li key={`${name}-${i}`} className="message-file" data-testid="message-file">
          <span className="message-file-name">{name}</span>
        </li>
      ))}
    </ul>
  );
}

/** What the person said; `children` go under it (controls such as Edit). */
/** `text` with the place "Settings → Providers" in it made a link there. */
function WithProvidersLink({ text, open }: { text: string; open: ReturnType<typeof useOpenSettings> }) {
  const { t } = useTranslation();
  const place = t('chat.providersPlace');
  const at = text.indexOf(place);
  if (!open || at < 0) return <>{text}</>;
  return (
    <>
      {text.slice(0, at)}
      <button type="button" className="link-button" onClick={() => open('providers')} data-testid="open-providers">
        {place}
      </button>
      {text.slice(at + place.length)}
    </>
  );
}

export function UserMessage({
  text,
  error,
  errorCode,
  attachments = [],
  files = [],
  onResend,
  children,
}: {
  text: string;
  error?: string | undefined;
  errorCode?: ApiErrorCode | undefined;
  /** Stored with the message. */
  attachments?: MessageAttachment[];
  /** Names of files sent with it, before it is stored. */
  files?: string[] | undefined;
  /** Offered when it could not be sent: sends the same text again. */
  onResend?: (() => void) | undefined;
  children?: ReactNode;
}) {
  const { t } = useTranslation();
  const openSettings = useOpenSettings();
  // The engine's refusals by their code; a run's own (a spending limit met on sending) too.
  const wording =
    errorCode === undefined
      ? undefined
      : isWordedApiErrorCode(errorCode)
        ? t(`apiErrors.${errorCode}`)
        : isEngineErrorCode(errorCode)
          ? t(`engineErrors.${errorCode}`)
          : undefined;
  const known = wording !== undefined;
  return (
    <article className="message message-user" data-testid="user-message">
      <h3 className="message-author">{t('chat.you')}</h3>
      {text && <p className="message-user-text">{text}</p>}
      <Attached attachments={attachments} files={files} />
      {error && (
        <p className="notice notice-error" role="alert">
          {known ? (
            <>
              <WithProvidersLink text={t('chat.sendFailed', { error: wording })} open={openSettings} />
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
          {onResend && (
            <button type="button" className="button button-small button-secondary resend-button" data-testid="resend" onClick={onResend}>
              {t('chat.sendAgain')}
            </button>
          )}
        </p>
      )}
      {children}
    </article>
  );
}
