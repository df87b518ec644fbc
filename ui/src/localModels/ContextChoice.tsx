import { useTranslation } from 'react-i18next';
import type { LocalModelsView } from '../settings/api';
import { Field } from '../settings/fields';

/** The contexts offered beside Automatic; one set another way (the API) is offered too. */
const CHOICES = [4096, 8192, 16384, 32768, 65536, 131072];

/**
 * How much of a conversation local models read at once. Automatic is the worker's choice (the
 * model's own, at most 16,384 tokens, less where the memory would not hold its cache); a loaded
 * model takes a new choice with the next message to it.
 */
export function ContextChoice({ view, busy, onChoose }: { view: LocalModelsView; busy: boolean; onChoose: (tokens: number | null) => void }) {
  const { t, i18n } = useTranslation();
  const number = new Intl.NumberFormat(i18n.language);
  const current = view.context_tokens;
  const choices = current != null && !CHOICES.includes(current) ? [...CHOICES, current].sort((a, b) => a - b) : CHOICES;
  return (
    <section className="settings-group" aria-label={t('localModels.context')}>
      <h3 className="settings-group-title">{t('localModels.context')}</h3>
      <Field label={t('localModels.contextLabel')} hint={t('localModels.contextHint')}>
        <select
          className="settings-input"
          data-testid="local-context"
          value={current == null ? 'auto' : String(current)}
          disabled={busy}
          onChange={(event) => onChoose(event.target.value === 'auto' ? null : Number(event.target.value))}
        >
          <option value="auto">{t('localModels.contextAuto')}</option>
          {choices.map((tokens) => (
            <option key={tokens} value={String(tokens)}>
              {t('localModels.contextTokens', { tokens: number.format(tokens) })}
            </option>
          ))}
        </select>
      </Field>
    </section>
  );
}
