import { useId, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { LANGUAGE_NAMES, SUPPORTED_LANGUAGES, currentLanguage, isLanguage, saveLanguage } from '../i18n';
import { THEME_CHOICES, isThemeChoice, type ThemeChoice } from '../theme';
import { ChevronDownIcon, GlobeIcon, ThemeIcon } from './icons';

export interface SelectLabelProps {
  /** Show the label above the control (the Settings page) rather than only naming it (the header). */
  labelVisible?: boolean;
}

function Labelled({ id, label, visible, children }: { id: string; label: string; visible: boolean; children: ReactNode }) {
  if (!visible) {
    return (
      <div className="select-field">
        <label htmlFor={id} className="visually-hidden">
          {label}
        </label>
        {children}
      </div>
    );
  }
  return (
    <div className="settings-field">
      <label htmlFor={id} className="settings-label">
        {label}
      </label>
      <div className="select-field">{children}</div>
    </div>
  );
}

/** Switches the UI language at once (no reload) and remembers the choice. */
export function LanguageSelect({ labelVisible = false }: SelectLabelProps = {}) {
  const { t, i18n } = useTranslation();
  const id = useId();
  const language = currentLanguage(i18n);

  return (
    <Labelled id={id} label={t('settings.language')} visible={labelVisible}>
      <GlobeIcon className="select-field-icon" />
      <select
        id={id}
        className="select-field-input"
        data-testid="language-select"
        value={language}
        onChange={(event) => {
          const next = event.target.value;
          if (!isLanguage(next)) return;
          saveLanguage(next);
          void i18n.changeLanguage(next);
        }}
      >
        {SUPPORTED_LANGUAGES.map((lng) => (
          <option key={lng} value={lng} lang={lng}>
            {LANGUAGE_NAMES[lng]}
          </option>
        ))}
      </select>
      <ChevronDownIcon className="select-field-chevron" />
    </Labelled>
  );
}

const THEME_LABEL_KEYS = {
  system: 'settings.themeSystem',
  light: 'settings.themeLight',
  dark: 'settings.themeDark',
} as const satisfies Record<ThemeChoice, string>;

export interface ThemeSelectProps extends SelectLabelProps {
  value: ThemeChoice;
  onChange: (choice: ThemeChoice) => void;
}

export function ThemeSelect({ value, onChange, labelVisible = false }: ThemeSelectProps) {
  const { t } = useTranslation();
  const id = useId();

  return (
    <Labelled id={id} label={t('settings.theme')} visible={labelVisible}>
      <ThemeIcon className="select-field-icon" />
      <select
        id={id}
        className="select-field-input"
        data-testid="theme-select"
        value={value}
        onChange={(event) => {
          const next = event.target.value;
          if (isThemeChoice(next)) onChange(next);
        }}
      >
        {THEME_CHOICES.map((choice) => (
          <option key={choice} value={choice}>
            {t(THEME_LABEL_KEYS[choice])}
          </option>
        ))}
      </select>
      <ChevronDownIcon className="select-field-chevron" />
    </Labelled>
  );
}
