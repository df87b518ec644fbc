import { useEffect, useId, useMemo, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { agentTitle } from '../../i18n/builtinNames';
import type { FormAction } from '../../generated/FormAction';
import type { FormRequestPayload } from '../../generated/FormRequestPayload';
import { ApiError, type Answer } from '../../transport/client';
import { fieldsOf, initialDraft, validate, type Draft, type Field, type FieldError } from './schema';
import { clearFormDraft, restoreFormDraft, saveFormDraft } from './formDrafts';
import { prefersReducedMotion } from '../../webtools/highlight';

export interface FormCardProps {
  request: FormRequestPayload;
  /** Sends the answer; rejects with an ApiError (422: `details.fields`) when it is refused. */
  onAnswer: (answer: Answer) => Promise<void>;
}

type Shown = ({ kind: 'local'; error: FieldError } | { kind: 'server'; message: string }) & {
  /**
   * Answered since: the line keeps its room, unseen, until the next Submit. Taken away, every
   * field under it moved up under the pointer, and the click meant for the next field (right
   * after a date was picked) landed on something else.
   */
  cleared?: boolean;
};

function Hint({ field }: { field: Field }) {
  const { t } = useTranslation();
  const range = (min: number | undefined, max: number | undefined, both: 'form.lengthBetween' | 'form.rangeBetween' | 'form.itemsBetween', lo: 'form.lengthMin' | 'form.rangeMin' | 'form.itemsMin', hi: 'form.lengthMax' | 'form.rangeMax' | 'form.itemsMax') =>
    min !== undefined && max !== undefined ? t(both, { min, max }) : min !== undefined ? t(lo, { min }) : max !== undefined ? t(hi, { max }) : '';
  let text = '';
  if (field.kind === 'string') text = range(field.minLength, field.maxLength, 'form.lengthBetween', 'form.lengthMin', 'form.lengthMax');
  if (field.kind === 'number' || field.kind === 'integer') text = range(field.minimum, field.maximum, 'form.rangeBetween', 'form.rangeMin', 'form.rangeMax');
  if (field.kind === 'multi') text = range(field.minItems, field.maxItems, 'form.itemsBetween', 'form.itemsMin', 'form.itemsMax');
  const parts = [field.description, text].filter(Boolean);
  return parts.length ? <>{parts.join(' · ')}</> : null;
}

/** A form the agent asked for (`interaction/form_request`), answered in place. */
export function FormCard({ request, onAnswer }: FormCardProps) {
  const { t } = useTranslation();
  const baseId = useId();
  const fields = useMemo(() => fieldsOf(request.schema), [request.schema]);
  const [draft, setDraft] = useState<Draft>(() => restoreFormDraft(request.form_id, initialDraft(fields)));
  const shownFirst = useRef(draft);
  const [errors, setErrors] = useState<Record<string, Shown>>({});
  const [busy, setBusy] = useState<FormAction | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const formRef = useRef<HTMLFormElement | null>(null);
  const titleRef = useRef<HTMLHeadingElement | null>(null);

  // A form that appears is brought into view, its title first, so the person sees it was asked;
  // at once for a person who asked the system for less motion.
  useEffect(() => {
    titleRef.current?.scrollIntoView?.({ block: 'start', behavior: prefersReducedMotion() ? 'auto' : 'smooth' });
  }, []);

  // Kept as the person types, so a restart of the app finds it again; a form only looked at
  // leaves nothing behind.
  useEffect(() => {
    if (draft !== shownFirst.current) saveFormDraft(request.form_id, draft);
  }, [draft, request.form_id]);

  const idOf = (name: string) => `${baseId}-${name}`;
  const errorText = (shown: Shown) => {
    if (shown.kind === 'server') return shown.message;
    const e = shown.error;
    return 'min' in e ? t(`form.${e.key}`, { min: e.min }) : 'max' in e ? t(`form.${e.key}`, { max: e.max }) : t(`form.${e.key}`);
  };

  const focusFirstError = (names: string[]) => {
    const first = fields.find((f) => names.includes(f.name));
    if (!first) return;
    const el = formRef.current?.querySelector<HTMLElement>(`[data-field="${CSS.escape(first.name)}"]`);
    el?.focus();
  };

  const send = async (answer: Answer, action: FormAction) => {
    setBusy(action);
    setFailure(null);
    try {
      await onAnswer(answer);
      clearFormDraft(request.form_id);
    } catch (error) {
      if (error instanceof ApiError && error.status === 422) {
        const byField = error.fieldErrors();
        const shown: Record<string, Shown> = {};
        for (const [name, message] of Object.entries(byField)) shown[name] = { kind: 'server', message };
        setErrors(shown);
        setFailure(t('form.fixErrors'));
        focusFirstError(Object.keys(shown));
      } else {
        setFailure(t('form.failed', { error: error instanceof Error ? error.message : String(error) }));
      }
    } finally {
      setBusy(null);
    }
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    const { values, errors: found } = validate(fields, draft);
    const shown: Record<string, Shown> = {};
    for (const [name, error] of Object.entries(found)) shown[name] = { kind: 'local', error };
    setErrors(shown);
    if (Object.keys(shown).length > 0) {
      setFailure(null);
      focusFirstError(Object.keys(shown));
      return;
    }
    void send({ action: 'accept', values }, 'accept');
  };

  const set = (name: string, value: string | boolean | number[]) => {
    setDraft((d) => ({ ...d, [name]: value }));
    setErrors((e) => {
      const was = e[name];
      if (!was || was.cleared) return e;
      return { ...e, [name]: { ...was, cleared: true } };
    });
  };

  const requester = request.requester;
  const askedBy = !requester?.name
    ? t('form.askedByAgent')
    : requester.kind === 'mcp_server'
      ? t('form.askedByMcpServer', { name: requester.name })
      : t('form.askedBy', { name: agentTitle(t, undefined, requester.name) });
  // A URL elicitation: the page accepting opens, shown as text so nothing follows it before then.
  const url = typeof request['url'] === 'string' ? request['url'] : null;
  const description = url && request.description?.endsWith(url) ? request.description.slice(0, -url.length).trimEnd() : request.description;
  const titleId = `${baseId}-title`;

  return (
    <form ref={formRef} className="form-card" aria-labelledby={titleId} data-testid="form-card" onSubmit={submit} noValidate>
      <h3 id={titleId} ref={titleRef} className="form-card-title">
        {request.title}
      </h3>
      <p className="form-card-requester" data-testid="form-requester">
        {askedBy}
      </p>
      {description && <p className="form-card-description">{description}</p>}
      {url && (
        <div className="form-card-url" data-testid="form-url">
          <p>{t('form.opensPage')}</p>
          <code>{url}</code>
        </div>
      )}
      {failure && (
        <p className="notice notice-error" role="alert" data-testid="form-failure">
          {failure}
        </p>
      )}
      {fields.map((field) => {
        const id = idOf(field.name);
        const kept = errors[field.name];
        const error = kept?.cleared ? undefined : kept;
        const hintId = `${id}-hint`;
        const errorId = `${id}-error`;
        const describedBy = [error ? errorId : '', `${hintId}`].filter(Boolean).join(' ');
        const hint = <Hint field={field} />;
        const label = (
          <>
            {field.title}
            {field.required && (
              <span className="form-required" aria-hidden="true">
                {' *'}
              </span>
            )}
          </>
        );
        const errorLine = error ? (
          <p id={errorId} className="form-error" data-testid="field-error">
            {errorText(error)}
          </p>
        ) : kept ? (
          <p className="form-error form-error-cleared" aria-hidden="true">
            {errorText(kept)}
          </p>
        ) : null;
        const hintLine = (
          <p id={hintId} className="form-hint">
            {hint}
          </p>
        );
        const value = draft[field.name];
        const common = {
          id,
          'data-field': field.name,
          'aria-invalid': error ? true : undefined,
          'aria-describedby': describedBy,
          'aria-required': field.required || undefined,
        } as const;

        switch (field.kind) {
          case 'string':
          case 'number':
          case 'integer': {
            const type =
              field.kind !== 'string'
                ? 'number'
                : field.format === 'email'
                  ? 'email'
                  : field.format === 'uri'
                    ? 'url'
                    : field.format === 'date'
                      ? 'date'
                      : field.format === 'date-time'
                        ? 'datetime-local'
                        : 'text';
            return (
              <div key={field.name} className="form-field">
                <label htmlFor={id}>{label}</label>
                <input
                  {...common}
                  className="form-input"
                  type={type}
                  step={field.kind === 'integer' ? 1 : field.kind === 'number' ? 'any' : undefined}
                  value={typeof value === 'string' ? value : ''}
                  onChange={(e) => set(field.name, e.target.value)}
                />
                {hintLine}
                {errorLine}
              </div>
            );
          }
          case 'boolean':
            return (
              <div key={field.name} className="form-field form-field-check">
                <input {...common} type="checkbox" checked={value === true} onChange={(e) => set(field.name, e.target.checked)} />
                <label htmlFor={id}>{label}</label>
                {hintLine}
                {errorLine}
              </div>
            );
          case 'select':
            return (
              <div key={field.name} className="form-field">
                <label htmlFor={id}>{label}</label>
                <select {...common} className="form-input" value={typeof value === 'string' ? value : ''} onChange={(e) => set(field.name, e.target.value)}>
                  <option value="">{t('form.chooseOne')}</option>
                  {field.options.map((o, i) => (
                    <option key={String(o.value)} value={String(i)}>
                      {o.label}
                    </option>
                  ))}
                </select>
                {hintLine}
                {errorLine}
              </div>
            );
          case 'multi': {
            const picked = Array.isArray(value) ? value : [];
            return (
              <fieldset
                key={field.name}
                className="form-field form-fieldset"
                aria-invalid={error ? true : undefined}
                aria-describedby={describedBy}
                aria-required={field.required || undefined}
              >
                <legend>{label}</legend>
                {field.options.map((o, i) => (
                  <label key={String(o.value)} className="form-choice">
                    <input
                      type="checkbox"
                      data-field={i === 0 ? field.name : undefined}
                      checked={picked.includes(i)}
                      onChange={(e) => set(field.name, e.target.checked ? [...picked, i] : picked.filter((p) => p !== i))}
                    />
                    {o.label}
                  </label>
                ))}
                {hintLine}
                {errorLine}
              </fieldset>
            );
          }
          default:
            return (
              <p key={field.name} className="notice notice-error">
                {t('form.unsupported', { field: field.title })}
              </p>
            );
        }
      })}
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={busy !== null}>
          {busy === 'accept' ? t('form.sending') : (request.ui?.submit_text ?? t('form.submit'))}
        </button>
        <button type="button" className="button button-secondary" disabled={busy !== null} onClick={() => void send({ action: 'decline' }, 'decline')}>
          {request.ui?.decline_text ?? t('form.decline')}
        </button>
        <button type="button" className="button button-secondary" disabled={busy !== null} onClick={() => void send({ action: 'cancel' }, 'cancel')}>
          {request.ui?.cancel_text ?? t('form.cancel')}
        </button>
      </div>
    </form>
  );
}
