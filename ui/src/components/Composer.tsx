import { memo, useCallback, useEffect, useLayoutEffect, useRef, useState, type ClipboardEvent, type DragEvent, type KeyboardEvent, type ReactNode, type RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import type { ConnectionState } from '../transport/connection';
import { readFiles, sizeLabel, type PendingFile, type Refusal } from './attachments';
import { useNativeDrop } from './nativeDrop';
import { pastedImage } from './clipboard';
import { PaperclipIcon, SendIcon, StopIcon } from './icons';
import type { DropRefusal } from '../generated/DropRefusal';
import type { ImageInput } from '../generated/ImageInput';
import type { InteractionView } from '../generated/InteractionView';

export interface ComposerProps {
  draft: string;
  onDraftChange: (draft: string) => void;
  connection: ConnectionState;
  connectionError?: string | null | undefined;
  /** Absent without an engine: then nothing can be sent. */
  onSend?: ((text: string, files: PendingFile[]) => void) | undefined;
  /** A run is answering: Send waits and Stop cancels it. */
  running?: boolean | undefined;
  /** The run waits for the person (a form or a consent): stopping it asks first. */
  waiting?: boolean | undefined;
  onStop?: (() => void) | undefined;
  inputRef: RefObject<HTMLTextAreaElement | null>;
  /** Which model answers the next message (the picker), under the box. */
  modelPicker?: ReactNode;
  /** Whether that model takes images (null: not known), said beside an attached picture. */
  imageInput?: ImageInput | null | undefined;
}

const MAX_INPUT_HEIGHT_PX = 200;

const REFUSAL_KEYS = { tooBig: 'composer.refusedTooBig', tooMany: 'composer.refusedTooMany', unreadable: 'composer.refusedUnreadable' } as const satisfies Record<DropRefusal, string>;

/** The message box: Enter sends, Shift+Enter inserts a new line. */
export const Composer = memo(function Composer({ draft, onDraftChange, connection, connectionError, onSend, running, waiting, onStop, inputRef, modelPicker, imageInput }: ComposerProps) {
  const { t } = useTranslation();
  const connected = connection === 'connected' && onSend !== undefined;
  const [files, setFiles] = useState<PendingFile[]>([]);
  const [refused, setRefused] = useState<Refusal[]>([]);
  const [dragging, setDragging] = useState(false);
  const picker = useRef<HTMLInputElement | null>(null);
  const canSend = connected && !running && (draft.trim().length > 0 || files.length > 0);

  const attach = async (list: readonly File[], refusedBefore: Refusal[] = []) => {
    if (list.length === 0 && refusedBefore.length === 0) return;
    const { read, refused } = await readFiles(list, files.length);
    setFiles((current) => [...current, ...read]);
    setRefused([...refusedBefore, ...refused]);
  };
  // Files dropped from another application on the desktop window, anywhere on it.
  useNativeDrop(setDragging, (dropped, refusedByShell) => void attach(dropped, refusedByShell));
  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    void attach(Array.from(event.dataTransfer.files));
  };
  const onPaste = (event: ClipboardEvent) => {
    const pasted = Array.from(event.clipboardData.files);
    if (pasted.length > 0) {
      event.preventDefault();
      void attach(pasted);
      return;
    }
    // WebKitGTK gives a pasted picture no file: with no text pasted, the shell reads it.
    if (event.clipboardData.getData('text/plain') !== '') return; // text pastes as text
    event.preventDefault();
    void pastedImage().then(
      (image) => (image ? attach([image]) : undefined),
      () => setRefused([{ name: t('composer.pastedPicture'), reason: 'unreadable' }]),
    );
  };

  // Grow with the text up to a limit, then scroll (set through CSSOM: fine under a strict CSP).
  useLayoutEffect(() => {
    const el = inputRef.current;
    if (!el) return;
    el.style.height = 'auto';
    if (el.scrollHeight > 0) el.style.height = `${Math.min(el.scrollHeight, MAX_INPUT_HEIGHT_PX)}px`;
  }, [draft, inputRef]);

  // Stopping a run that waits for the person cancels what they were asked: asked first, in place.
  // What the waiting run asked the person for.
  const [asking, setAsking] = useState<InteractionView['kind'] | null>(null);
  const askedFrom = useRef<HTMLElement | null>(null);
  const confirmStopRef = useRef<HTMLButtonElement | null>(null);
  const [nudged, setNudged] = useState(false);
  // The question and the nudge belong to this wait: gone when the run stops waiting.
  const waitingNow = Boolean(running && waiting);
  const [seenWaiting, setSeenWaiting] = useState(waitingNow);
  if (seenWaiting !== waitingNow) {
    setSeenWaiting(waitingNow);
    setAsking(null);
    setNudged(false);
  }
  const stop = useCallback(() => {
    if (!onStop) return;
    if (!waiting) {
      onStop();
      return;
    }
    askedFrom.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    setAsking(document.querySelector('form.form-card') ? 'form' : 'consent');
  }, [onStop, waiting]);
  const keepWaiting = useCallback(() => {
    setAsking(null);
    // Back where the keyboard was before the question.
    const back = askedFrom.current;
    requestAnimationFrame(() => (back?.isConnected ? back : inputRef.current)?.focus());
  }, [inputRef]);

  useEffect(() => {
    if (asking) confirmStopRef.current?.focus();
  }, [asking]);

  // Esc stops a running answer wherever the focus is, except where the key belongs to what has
  // the focus: a form being filled in (its fields, its lists) or a dialog or menu.
  useEffect(() => {
    if (!running || !onStop) return;
    const onKey = (event: globalThis.KeyboardEvent) => {
      if (event.key !== 'Escape' || event.defaultPrevented) return;
      if (document.querySelector('[role="dialog"], [role="menu"], dialog[open]')) return;
      const target = event.target instanceof Element ? event.target : null;
      if (target?.closest('form.form-card, [role="dialog"], [role="alertdialog"], [role="menu"], [role="listbox"], dialog')) return;
      event.preventDefault();
      if (asking) keepWaiting();
      else stop();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [running, onStop, asking, stop, keepWaiting]);

  const send = () => {
    if (!canSend || !onSend) return;
    onSend(draft.trim(), files);
    onDraftChange('');
    setFiles([]);
    setRefused([]);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key !== 'Enter' || event.shiftKey) return; // Shift+Enter: the default new line
    // An Enter that confirms an IME candidate (Chinese, Japanese…) must not send.
    if (event.nativeEvent.isComposing || event.keyCode === 229) return;
    event.preventDefault();
    // Nothing can be sent while the run waits: the status under the box says why, brought forward.
    if (waitingNow) setNudged(true);
    send();
  };

  const status =
    connection === 'connecting'
      ? t('composer.connecting')
      : connection === 'error'
        ? connectionError === 'token'
          ? t('composer.tokenRefused')
          : t('composer.connectionFailed', { error: connectionError ?? '' })
        : connected
          ? running
            ? waiting
              ? t('composer.waitingHint')
              : t('composer.running')
            : ''
          : t('composer.notConnected');

  return (
    <form
      className="composer"
      data-testid="composer"
      onSubmit={(event) => {
        event.preventDefault();
        send();
      }}
    >
      <div
        className="composer-box"
        data-dragging={dragging || undefined}
        onDragOver={(event) => {
          if (!event.dataTransfer.types.includes('Files')) return;
          event.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
      >
        {files.length > 0 && (
          <ul className="composer-files" aria-label={t('composer.attached')} data-testid="composer-files">
            {files.map((file) => (
              <li key={file.id} className="composer-file" data-testid="composer-file">
                {file.mime.startsWith('image/') && <img src={file.dataUrl} alt="" className="composer-file-thumb" />}
                <span className="composer-file-name">{file.name}</span>
                <span className="composer-file-size">{sizeLabel(file.size)}</span>
                <button
                  type="button"
                  className="composer-file-remove"
                  aria-label={t('composer.removeFile', { name: file.name })}
                  onClick={() => setFiles((current) => current.filter((f) => f.id !== file.id))}
                >
                  ×
                </button>
              </li>
            ))}
          </ul>
        )}
        <button
          type="button"
          className="icon-button composer-attach"
          aria-label={t('composer.attach')}
          title={t('composer.attachHint')}
          data-testid="attach-button"
          disabled={!connected}
          onClick={() => picker.current?.click()}
        >
          <PaperclipIcon />
        </button>
        <input
          ref={picker}
          type="file"
          multiple
          hidden
          data-testid="attach-input"
          onChange={(event) => {
            void attach(Array.from(event.target.files ?? []));
            event.target.value = '';
          }}
        />
        <label htmlFor="composer-input" className="visually-hidden">
          {t('composer.label')}
        </label>
        <textarea
          id="composer-input"
          ref={inputRef}
          className="composer-input"
          data-testid="composer-input"
          rows={1}
          value={draft}
          placeholder={t('composer.placeholder')}
          aria-describedby="composer-status"
          onChange={(event) => onDraftChange(event.target.value)}
          onKeyDown={onKeyDown}
          onPaste={onPaste}
        />
        {running && onStop ? (
          <button type="button" className="button stop-button" data-testid="stop-button" aria-keyshortcuts="Escape" title={t('chat.stopHint')} aria-expanded={waiting ? asking !== null : undefined} onClick={stop}>
            <StopIcon />
            <span>{t('chat.stop')}</span>
          </button>
        ) : null}
        <button
          type="submit"
          className="button button-primary send-button"
          data-testid="send-button"
          disabled={!canSend}
          aria-describedby="composer-status"
        >
          <SendIcon />
          <span>{t('composer.send')}</span>
        </button>
      </div>
      {asking && (
        <div
          className="inline-confirm composer-stop-confirm"
          role="group"
          aria-labelledby="composer-stop-question"
          data-testid="stop-confirm"
          onKeyDown={(event) => {
            if (event.key !== 'Escape') return;
            event.preventDefault();
            event.stopPropagation();
            keepWaiting();
          }}
        >
          <span id="composer-stop-question">{t(asking === 'form' ? 'composer.stopFormQuestion' : 'composer.stopConsentQuestion')}</span>
          <button
            ref={confirmStopRef}
            type="button"
            className="button button-secondary button-small button-danger"
            onClick={() => {
              setAsking(null);
              onStop?.();
            }}
          >
            {t(asking === 'form' ? 'composer.stopFormConfirm' : 'composer.stopConsentConfirm')}
          </button>
          <button type="button" className="button button-secondary button-small" onClick={keepWaiting}>
            {t(asking === 'form' ? 'composer.keepForm' : 'composer.keepConsent')}
          </button>
        </div>
      )}
      {imageInput?.takes_images === false && files.some((f) => f.mime.startsWith('image/')) && (
        <p className="notice composer-image-note" role="status" data-testid="image-unseen">
          {t('composer.imageUnseen', { model: imageInput.model })}
        </p>
      )}
      {refused.length > 0 && (
        <p className="notice notice-error composer-refused" role="alert" data-testid="attach-refused">
          {refused.map((r) => t(REFUSAL_KEYS[r.reason], { name: r.name })).join(' ')}
        </p>
      )}
      <div className="composer-footer">
        {modelPicker}
        <p id="composer-status" className="composer-status" role="status" data-state={connection} data-nudged={nudged || undefined}>
          {status && <span className="status-dot" aria-hidden="true" />}
          {status}
        </p>
        <p className="composer-hint">{t('composer.hint')}</p>
      </div>
    </form>
  );
});
