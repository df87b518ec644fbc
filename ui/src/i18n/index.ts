import i18next, { type i18n as I18n } from 'i18next';
import { initReactI18next } from 'react-i18next';
import en from './locales/en';
import zhCN from './locales/zh-CN';
import { localStore, readItem, writeItem, type KeyValueStore } from '../storage';

export const SUPPORTED_LANGUAGES = ['zh-CN', 'en'] as const;
export type Language = (typeof SUPPORTED_LANGUAGES)[number];

/** Each language named in itself, as language menus conventionally do. */
export const LANGUAGE_NAMES: Record<Language, string> = {
  'zh-CN': '简体中文',
  en: 'English',
};

export const LANGUAGE_STORAGE_KEY = 'tessera.language';

export const resources = {
  en: { translation: en },
  'zh-CN': { translation: zhCN },
} as const;

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (SUPPORTED_LANGUAGES as readonly string[]).includes(value);
}

/** Maps a BCP 47 tag to a UI language: any `zh…` → zh-CN, `en…` → en, anything else → null. */
export function languageForTag(tag: string | undefined | null): Language | null {
  const lower = (tag ?? '').trim().toLowerCase();
  if (lower === 'zh' || lower.startsWith('zh-') || lower.startsWith('zh_')) return 'zh-CN';
  if (lower === 'en' || lower.startsWith('en-') || lower.startsWith('en_')) return 'en';
  return null;
}

export interface LanguageEnvironment {
  navigator: Pick<Navigator, 'language' | 'languages'> | undefined;
  storage: KeyValueStore | undefined;
}

function defaultEnvironment(): LanguageEnvironment {
  return {
    navigator: typeof navigator === 'undefined' ? undefined : navigator,
    storage: localStore(),
  };
}

/**
 * The language to start in: the person's saved choice if there is one; otherwise the first of
 * the OS/browser preferred languages that the UI has (Chinese of any region → zh-CN);
 * otherwise English.
 */
export function detectLanguage(env: LanguageEnvironment = defaultEnvironment()): Language {
  const saved = readItem(env.storage, LANGUAGE_STORAGE_KEY);
  if (isLanguage(saved)) return saved;

  const nav = env.navigator;
  const preferred = nav?.languages?.length ? nav.languages : [nav?.language];
  for (const tag of preferred) {
    const language = languageForTag(tag);
    if (language) return language;
  }
  return 'en';
}

/** Remembers an explicit choice, so it wins over the OS locale from now on. */
export function saveLanguage(language: Language, storage: KeyValueStore | undefined = localStore()): void {
  writeItem(storage, LANGUAGE_STORAGE_KEY, language);
}

/**
 * A fresh i18next instance with both locales bundled (no HTTP backend, nothing async), started
 * in `language`. It keeps `<html lang>` in step with the current language.
 */
export function createI18n(language: Language = detectLanguage()): I18n {
  const instance = i18next.createInstance();
  const syncDocument = (lng: string) => {
    if (typeof document !== 'undefined') document.documentElement.lang = lng;
  };
  instance.on('languageChanged', syncDocument);
  void instance.use(initReactI18next).init({
    resources,
    lng: language,
    fallbackLng: 'en',
    supportedLngs: [...SUPPORTED_LANGUAGES],
    load: 'currentOnly',
    interpolation: { escapeValue: false }, // React escapes already
    returnNull: false,
    initAsync: false,
  });
  syncDocument(instance.language);
  return instance;
}

/** The current language of `i18n` as one of ours (en when it is anything else). */
export function currentLanguage(i18n: I18n): Language {
  return isLanguage(i18n.language) ? i18n.language : 'en';
}
