/** Saving text the app made (an export) as a file the person downloads. */

import { invoke } from '@tauri-apps/api/core';
import { inDesktopShell } from '../transport/ipc';

/** A file name from a conversation title: no path separators or characters systems refuse. */
export function fileNameFor(title: string, extension: string): string {
  const cleaned = title
    .replace(/[\\/:*?"<>|\u0000-\u001f]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 80)
    .trim();
  return `${cleaned || 'conversation'}.${extension}`;
}

/** Offers `text` as a download named `name`. */
export function downloadText(name: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.rel = 'noopener';
  link.style.display = 'none';
  document.body.append(link);
  link.click();
  link.remove();
  // Some browsers read the URL after the click returns.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Where an export went: a path the person chose (the desktop app), or a browser download. */
export type ExportPlace = { kind: 'saved'; path: string } | { kind: 'downloaded'; name: string };

/**
 * Saves an export where the person says: the desktop app asks with its save dialog (the
 * webview alone would write it silently into the app's working folder); a browser downloads
 * it. Null when the person cancelled the dialog.
 */
export async function saveExport(name: string, text: string, type: string, desktop: boolean = inDesktopShell()): Promise<ExportPlace | null> {
  if (desktop) {
    const path = await invoke<string | null>('save_export', { suggestedName: name, text });
    return path === null ? null : { kind: 'saved', path };
  }
  downloadText(name, text, type);
  return { kind: 'downloaded', name };
}
