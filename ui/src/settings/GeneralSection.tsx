import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { LanguageSelect, ThemeSelect } from '../components/Settings';
import type { ThemeChoice } from '../theme';
import type { SettingsView, SettingsApi } from './api';
import { DiagnosticsSection } from './DiagnosticsSection';
import { Field, isApiError, messageOf } from './fields';

export interface GeneralSectionProps {
  api: SettingsApi | null;
  theme: ThemeChoice;
  onThemeChange: (choice: ThemeChoice) => void;
}

type LimitKey = 'spending_limit_per_day_usd' | 'spending_limit_per_conversation_usd';

const LIMIT_LABELS = {
  spending_limit_per_day_usd: 'general.limitPerDay',
  spending_limit_per_conversation_usd: 'general.limitPerConversation',
} as const satisfies Record<LimitKey, string>;

/** What the engine takes for a limit: `5`, `$2.50`, `none`. */
const AMOUNT = /^(?:\$?\s*(?:\d+(?:\.\d*)?|\.\d+)|none)$/i;

function LimitForm({ api, settingKey, value, onSaved }: { api: SettingsApi; settingKey: LimitKey; value: number | null; onSaved: (s: SettingsView) => void }) {
  const { t } = useTranslation();
  const [text, setText] = useState(value === null ? '' : String(value));
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);

  useEffect(() => setText(value === null ? '' : String(value)), [value]);

  const label = t(LIMIT_LABELS[settingKey]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const trimmed = text.trim();
    setSaved(false);
    if (trimmed !== '' && !AMOUNT.test(trimmed)) {
      setError(t('general.notAnAmount', { label }));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      onSaved(await api.changeSetting(settingKey, trimmed === '' ? null : trimmed));
      setSaved(true);
    } catch (err) {
      setError(isApiError(err, 400) ? err.message : t('settings.failed', { error: messageOf(err) }));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="settings-inline-form" onSubmit={(e) => void submit(e)}>
      <Field label={label} error={error} hint={t('general.limitHint')}>
        <input
          className="settings-input"
          inputMode="decimal"
          value={text}
          placeholder={t('general.noLimit')}
          onChange={(e) => {
            setText(e.target.value);
            setSaved(false);
          }}
        />
      </Field>
      <button type="submit" className="button button-secondary" disabled={busy}>
        {t('settings.save')}
      </button>
      {saved && (
        <span role="status" className="settings-saved">
          {t('settings.saved')}
        </span>
      )}
    </form>
  );
}

/** Theme, language, and the spending limits with what was spent today. */
export function GeneralSection({ api, theme, onThemeChange }: GeneralSectionProps) {
  const { t } = useTranslation();
  const [settings, setSettings] = useState<SettingsView | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);

  useEffect(() => {
    if (!api) return;
    let live = true;
    api.settings().then(
      (s) => live && setSettings(s),
      (err: unknown) => live && setLoadError(messageOf(err)),
    );
    return () => {
      live = false;
    };
  }, [api]);

  return (
    <>
      <section className="settings-group" aria-labelledby="general-appearance">
        <h3 id="general-appearance" className="settings-group-title">
          {t('general.appearance')}
        </h3>
        <ThemeSelect labelVisible value={theme} onChange={onThemeChange} />
        <LanguageSelect labelVisible />
        <p className="settings-hint">{t('general.languageHint')}</p>
      </section>
      <section className="settings-group" aria-labelledby="general-spending">
        <h3 id="general-spending" className="settings-group-title">
          {t('general.spending')}
        </h3>
        {!api && <p className="settings-hint">{t('settings.notConnected')}</p>}
        {loadError && (
          <p className="notice notice-error" role="alert">
            {t('settings.loadFailed', { error: loadError })}
          </p>
        )}
        {api && settings && (
          <>
            {settings.spent_today_usd !== null && <p data-testid="spent-today">{t('general.spentToday', { amount: settings.spent_today_usd.toFixed(4) })}</p>}
            {(['spending_limit_per_day_usd', 'spending_limit_per_conversation_usd'] as const).map((key) => (
              <LimitForm key={key} api={api} settingKey={key} value={settings.settings[key]} onSaved={setSettings} />
            ))}
          </>
        )}
      </section>
      <DiagnosticsSection api={api} />
    </>
  );
}
