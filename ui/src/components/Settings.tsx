import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { LANGUAGE_NAMES, SUPPORTED_LANGUAGES, currentLanguage, isLanguage, saveLanguage } from '../i18n';
import { THEME_CHOICES, isThemeChoice, type ThemeChoice } from '../theme';
import { ChevronDownIcon, GlobeIcon, ThemeIcon } from './icons';

/** Switches the UI language at once (no reload) and remembers the choice. */
export function LanguageSelect() {
  const { t, i18n } = useTranslation();
  const id = useId();
  const language = currentLanguage(i18n);

  return (
    <div className="select-field">
      <label htmlFor={id} className="visually-hidden">
        {t('settings.language')}
      </label>
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
    </div>
  );
}

const THEME_LABEL_KEYS = {
  system: 'settings.themeSystem',
  light: 'settings.themeLight',
  dark: 'settings.themeDark',
} as const satisfies Record<ThemeChoice, string>;

export interface ThemeSelectProps {
  value: ThemeChoice;
  onChange: (choice: ThemeChoice) => void;
}

export function ThemeSelect({ value, onChange }: ThemeSelectProps) {
  const { t } = useTranslation();
  const id = useId();

  return (
    <div className="select-field">
      <label htmlFor={id} className="visually-hidden">
        {t('settings.theme')}
      </label>
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
    </div>
  );
}
