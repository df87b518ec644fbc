/**
 * What the person typed into a waiting form, kept per form as they type (localStorage), so a
 * restart of the app finds it again; dropped once the form is answered, declined or cancelled.
 */
import { localStore, readItem, writeItem } from '../../storage';
import type { Draft } from './schema';

const PREFIX = 'tessera.formDraft.';

/** `initial` with what was kept for form `formId`: only its own fields, each of the same type. */
export function restoreFormDraft(formId: string, initial: Draft): Draft {
  const kept = readItem(localStore(), PREFIX + formId);
  if (!kept) return initial;
  let stored: unknown;
  try {
    stored = JSON.parse(kept);
  } catch {
    return initial;
  }
  if (typeof stored !== 'object' || stored === null) return initial;
  const restored: Draft = { ...initial };
  for (const [name, value] of Object.entries(stored as Record<string, unknown>)) {
    const before = initial[name];
    if (before === undefined) continue;
    if (Array.isArray(before) ? Array.isArray(value) && value.every((i) => Number.isInteger(i)) : typeof value === typeof before) {
      restored[name] = value as Draft[string];
    }
  }
  return restored;
}

export function saveFormDraft(formId: string, draft: Draft): void {
  writeItem(localStore(), PREFIX + formId, JSON.stringify(draft));
}

export function clearFormDraft(formId: string): void {
  try {
    localStore()?.removeItem(PREFIX + formId);
  } catch {
    // Storage refused: the draft simply stays.
  }
}
