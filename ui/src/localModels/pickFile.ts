/** Choosing a GGUF file with the system's own open dialog, where there is one. */

import { invoke } from '@tauri-apps/api/core';
import { inDesktopShell } from '../transport/ipc';

/**
 * Whether a file can be chosen with a dialog: only the desktop app has one that gives back a
 * full path (a browser's file input hides where the file is), so the browser keeps the typed
 * path alone.
 */
export function canBrowseFiles(): boolean {
  return inDesktopShell();
}

/** The full path of the GGUF file the person chose, or null when they cancelled. */
export async function pickGgufFile(title: string, filterName: string): Promise<string | null> {
  return invoke<string | null>('pick_gguf_file', { title, filterName });
}
