import { cloneElement, useId, type ReactElement, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../transport/client';
import { describeError } from '../transport/describeError';

export interface FieldProps {
  label: string;
  /** The message shown under the control, tied to it by aria-describedby. */
  error?: string | null | undefined;
  hint?: ReactNode;
  /** One input, select or textarea; it gets the id, aria-invalid and aria-describedby. */
  children: ReactElement<{ id?: string; 'aria-invalid'?: boolean | undefined; 'aria-describedby'?: string }>;
}

/** A labelled control with its hint and its error next to it. */
export function Field({ label, error, hint, children }: FieldProps) {
  const id = useId();
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const describedBy = [error ? errorId : null, hint ? hintId : null].filter(Boolean).join(' ') || undefined;
  return (
    <div className="settings-field">
      <label htmlFor={id} className="settings-label">
        {label}
      </label>
      {cloneElement(children, {
        id,
        'aria-invalid': error ? true : undefined,
        ...(describedBy ? { 'aria-describedby': describedBy } : {}),
      })}
      {hint && (
        <p id={hintId} className="settings-hint">
          {hint}
        </p>
      )}
      {error && (
        <p id={errorId} className="field-error">
          {error}
        </p>
      )}
    </div>
  );
}

/** The message of any failure, for people. */
export function messageOf(error: unknown): string {
  return describeError(error, false);
}

export function isApiError(error: unknown, status?: number): error is ApiError {
  return error instanceof ApiError && (status === undefined || error.status === status);
}

/** A failure said where it happened (announced at once). */
export function ErrorNotice({ message }: { message: string | null | undefined }) {
  if (!message) return null;
  return (
    <p className="notice notice-error" role="alert">
      {message}
    </p>
  );
}

/** What a step just did (announced politely). */
export function SavedNote({ message }: { message: string | null | undefined }) {
  if (!message) return null;
  return (
    <p className="settings-saved" role="status">
      {message}
    </p>
  );
}

export interface FormActionsProps {
  submitText: string;
  busy: boolean;
  /** The form-wide failure, shown above the buttons. */
  error?: string | null | undefined;
  onCancel?: (() => void) | undefined;
}

/** The end of a settings form: its failure, then submit and cancel. */
export function FormActions({ submitText, busy, error, onCancel }: FormActionsProps) {
  const { t } = useTranslation();
  return (
    <>
      <ErrorNotice message={error} />
      <div className="settings-actions">
        <button type="submit" className="button button-primary" disabled={busy}>
          {submitText}
        </button>
        {onCancel && (
          <button type="button" className="button button-secondary" onClick={onCancel}>
            {t('settings.cancel')}
          </button>
        )}
      </div>
    </>
  );
}
