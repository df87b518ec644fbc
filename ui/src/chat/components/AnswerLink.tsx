import { useEffect, useRef, useState, type ComponentPropsWithoutRef, type KeyboardEvent, type MouseEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { invoke } from '@tauri-apps/api/core';
import { copyText } from '../../components/clipboard';
import { inDesktopShell } from '../../transport/ipc';

/** Whether a link's text says where it goes (its address, with or without the scheme). */
export function textIsAddress(text: string, href: string): boolean {
  const bare = (s: string) => s.trim().replace(/^(https?:\/\/|mailto:)/i, '').replace(/\/$/, '').toLowerCase();
  return text.trim() !== '' && bare(text) === bare(href);
}

/** Opens `href` where the person reads the web: their default browser (the desktop shell), or a new tab. */
async function openOutside(href: string): Promise<void> {
  if (inDesktopShell()) {
    await invoke('open_link', { address: href });
    return;
  }
  window.open(href, '_blank', 'noopener,noreferrer');
}

/**
 * A link in an answer. It opens outside the app, never in its window; one whose text is not its
 * address shows the full address first (a model's answer may word a link as anything), with
 * Open, Copy and Cancel.
 */
export function AnswerLink({ href, children, ...rest }: ComponentPropsWithoutRef<'a'>) {
  const { t } = useTranslation();
  const [asking, setAsking] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const openRef = useRef<HTMLButtonElement | null>(null);
  const linkRef = useRef<HTMLAnchorElement | null>(null);

  useEffect(() => {
    if (asking) openRef.current?.focus();
  }, [asking]);

  // A link the sanitiser took the address from (`javascript:`…) stays inert text in its place.
  if (!href) return <a {...rest}>{children}</a>;

  const open = async () => {
    setFailure(null);
    try {
      await openOutside(href);
      setAsking(false);
    } catch (error) {
      setAsking(true);
      setFailure(t('chat.linkFailed', { error: error instanceof Error ? error.message : String(error) }));
    }
  };
  const close = () => {
    setAsking(false);
    setFailure(null);
    linkRef.current?.focus();
  };
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    if (textIsAddress(event.currentTarget.textContent ?? '', href)) {
      // In a browser the link's own new tab does it; the desktop's webview opens nothing.
      if (inDesktopShell()) {
        event.preventDefault();
        void open();
      }
      return;
    }
    event.preventDefault();
    setAsking(true);
  };
  const onKey = (event: KeyboardEvent<HTMLSpanElement>) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      close();
    }
  };

  return (
    <span className="answer-link">
      <a ref={linkRef} href={href} target="_blank" rel="noopener noreferrer nofollow" title={href} onClick={onClick} {...rest}>
        {children}
      </a>
      {asking && (
        <span className="link-confirm" role="dialog" aria-modal="false" aria-label={t('chat.linkOpens')} onKeyDown={onKey} data-testid="link-confirm">
          <span className="link-confirm-label">{t('chat.linkOpens')}</span>
          <code className="link-confirm-address" data-testid="link-address">
            {href}
          </code>
          {failure && (
            <span className="link-confirm-error" role="alert">
              {failure}
            </span>
          )}
          <span className="link-confirm-actions">
            <button ref={openRef} type="button" className="button button-primary button-small" onClick={() => void open()}>
              {t('chat.linkOpen')}
            </button>
            <button
              type="button"
              className="button button-secondary button-small"
              onClick={() =>
                void copyText(href).then(
                  () => setCopied(true),
                  () => setCopied(false),
                )
              }
            >
              {copied ? t('chat.copied') : t('chat.linkCopy')}
            </button>
            <button type="button" className="button button-secondary button-small" onClick={close}>
              {t('chat.linkCancel')}
            </button>
          </span>
        </span>
      )}
    </span>
  );
}
