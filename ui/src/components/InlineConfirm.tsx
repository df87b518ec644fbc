import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';

export interface InlineConfirmProps {
  /** The button's text, and its accessible name unless `ariaLabel` gives a longer one. */
  label: string;
  ariaLabel?: string | undefined;
  question: string;
  confirmText: string;
  keepText: string;
  disabled?: boolean | undefined;
  className?: string | undefined;
  onConfirm: () => Promise<void>;
}

/**
 * A button for something that cannot be undone: pressed, it asks in place (the keyboard lands
 * on the answer; Escape or "keep" returns to the button) instead of a browser dialog.
 */
export function InlineConfirm({ label, ariaLabel, question, confirmText, keepText, disabled, className = '', onConfirm }: InlineConfirmProps) {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const confirmRef = useRef<HTMLButtonElement | null>(null);
  const triggerRef = useRef<HTMLButtonElement | null>(null);
  const questionId = useId();

  useEffect(() => {
    if (confirming) confirmRef.current?.focus();
  }, [confirming]);

  const cancel = () => {
    setConfirming(false);
    // Back to the button that opened the question, so the keyboard stays where it was.
    requestAnimationFrame(() => triggerRef.current?.focus());
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      cancel();
    }
  };

  const confirm = async () => {
    setBusy(true);
    try {
      await onConfirm();
    } finally {
      setBusy(false);
      setConfirming(false);
    }
  };

  if (!confirming) {
    return (
      <button ref={triggerRef} type="button" className={`button button-secondary button-small ${className}`.trim()} disabled={disabled} aria-label={ariaLabel} onClick={() => setConfirming(true)}>
        {label}
      </button>
    );
  }
  return (
    <div className="inline-confirm" role="group" aria-labelledby={questionId} onKeyDown={onKeyDown}>
      <span id={questionId}>{question}</span>
      <button ref={confirmRef} type="button" className="button button-secondary button-small button-danger" disabled={busy} onClick={() => void confirm()}>
        {confirmText}
      </button>
      <button type="button" className="button button-secondary button-small" disabled={busy} onClick={cancel}>
        {keepText}
      </button>
    </div>
  );
}
