import type en from './locales/en';

// Typed translation keys: `t('composer.sned')` is a compile error.
declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'translation';
    resources: { translation: typeof en };
  }
}
