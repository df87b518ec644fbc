import { localStore, readItem, writeItem, type KeyValueStore } from './storage';

export const THEME_CHOICES = ['system', 'light', 'dark'] as const;
export type ThemeChoice = (typeof THEME_CHOICES)[number];

export const THEME_STORAGE_KEY = 'tessera.theme';

export function isThemeChoice(value: unknown): value is ThemeChoice {
  return typeof value === 'string' && (THEME_CHOICES as readonly string[]).includes(value);
}

export function readThemeChoice(storage: KeyValueStore | undefined = localStore()): ThemeChoice {
  const saved = readItem(storage, THEME_STORAGE_KEY);
  return isThemeChoice(saved) ? saved : 'system';
}

export function saveThemeChoice(choice: ThemeChoice, storage: KeyValueStore | undefined = localStore()): void {
  writeItem(storage, THEME_STORAGE_KEY, choice);
}

/**
 * Applies a choice to the document. `light`/`dark` set `data-theme`; `system` removes it, and
 * the stylesheet follows `prefers-color-scheme` (live, without any script).
 */
export function applyTheme(choice: ThemeChoice, root: HTMLElement = document.documentElement): void {
  if (choice === 'system') root.removeAttribute('data-theme');
  else root.setAttribute('data-theme', choice);
}
