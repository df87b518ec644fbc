import { createContext, useContext } from 'react';
import type { SectionId } from './SettingsPage';

/**
 * Opens Settings at a section. Given by the app to whatever names a place in Settings in its
 * text ("Settings → Providers"), so the name can be followed instead of hunted for.
 */
export const OpenSettingsContext = createContext<((section: SectionId) => void) | null>(null);

export function useOpenSettings(): ((section: SectionId) => void) | null {
  return useContext(OpenSettingsContext);
}
