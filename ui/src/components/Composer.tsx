import { memo, useEffect, useLayoutEffect, useRef, useState, type ClipboardEvent, type DragEvent, type KeyboardEvent, type ReactNode, type RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import type { ConnectionState } from '../transport/connection';
import { readFiles, sizeLabel, type PendingFile, type Refusal } from './attachments';
import { PaperclipIcon, SendIcon, StopIcon } from './icons';

export interface ComposerProps {
  draft: string;
  onDraftChange: (draft: string) => void;
  connection: ConnectionState;
  connectionError?: string | null | undefined;
  /** Absent without an engine: then nothing can be sent. */
  onSend?: ((text: string, files: PendingFile[]) => void) | undefined;
  /** A run is answering: Send waits and Stop cancels it. */
  running?: boolean | undefined;
  /** The run waits for the person (a form or a consent). */
  waiting?: boolean | undefined;
  onStop?: (() => void) | undefined;
  inputRef: RefObject<HTMLTextAreaElement | null>;
  /** Which model answers the next message (the picker), under the box. */
  modelPicker?: ReactNode;
}

const MAX_INPUT_HEIGHT_PX = 200;

const REFUSAL_KEYS = { tooBig: 'composer.refusedTooBig', tooMany: 'composer.refusedTooMany', unreadable: 'composer.refusedUnreadable' } as const;

/** The message box: Enter sends, Shift+Enter inserts a new line. */
export const Composer = memo(function Composer({ draft, onDraftChange, connection, connectionError, onSend, running, waiting, onStop, inputRef, modelPicker }: ComposerProps) {
  const { t } = useTranslation();
  const connected = connection === 'connected' && onSend !== undefined;
  const [files, setFiles] = useState<PendingFile[]>([]);
  const [refused, setRefused] = useState<Refusal[]>([]);
  const [dragging, setDragging] = useState(false);
  const picker = useRef<HTMLInputElement | null>(null);
  const canSend = connected && !running && (draft.trim().length > 0 || files.length > 0);

  const attach = async (list: readonly File[]) => {
    if (list.length === 0) return;
    const { read, refused } = await readFiles(list, files.length);
    setFiles((current) => [...current, ...read]);
    setRefused(refused);
  };
  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    void attach(Array.from(event.dataTransfer.files));
  };
  const onPaste = (event: ClipboardEvent) => {
    const pasted = Array.from(event.clipboardData.files);
    if (pasted.length === 0) return; // text pastes as text
    event.preventDefault();
    void attach(pasted);
  };

  // Grow with the text up to a limit, then scroll (set through CSSOM: fine under a strict CSP).
  useLayoutEffect(() => {
    const el = inputRef.current;
    if (!el) return;
    el.style.height = 'auto';
    if (el.scrollHeight > 0) el.style.height = `${Math.min(el.scrollHeight, MAX_INPUT_HEIGHT_PX)}px`;
  }, [draft, inputRef]);

  // Esc stops a running answer, wherever the focus is, unless a dialog or menu takes the key.
  useEffect(() => {
    if (!running || !onStop) return;
    const onKey = (event: globalThis.KeyboardEvent) => {
      if (event.key !== 'Escape' || event.defaultPrevented) return;
      if (document.querySelector('[role="dialog"], [role="menu"]')) return;
      event.preventDefault();
      onStop();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [running, onStop]);

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
              ? t('chat.waiting')
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
          <button type="button" className="button stop-button" data-testid="stop-button" aria-keyshortcuts="Escape" title={t('chat.stopHint')} onClick={onStop}>
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
      {refused.length > 0 && (
        <p className="notice notice-error composer-refused" role="alert" data-testid="attach-refused">
          {refused.map((r) => t(REFUSAL_KEYS[r.reason], { name: r.name })).join(' ')}
        </p>
      )}
      <div className="composer-footer">
        {modelPicker}
        <p id="composer-status" className="composer-status" role="status" data-state={connection}>
          {status && <span className="status-dot" aria-hidden="true" />}
          {status}
        </p>
        <p className="composer-hint">{t('composer.hint')}</p>
      </div>
    </form>
  );
});
