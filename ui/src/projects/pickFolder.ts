/** Choosing a project's folder with the system's own dialog, where there is one. */

import { invoke } from '@tauri-apps/api/core';
import { inDesktopShell } from '../transport/ipc';

/**
 * Whether a folder can be chosen with a dialog: only the desktop app has one that gives back
 * a full path (a browser hides where things are), so the browser keeps the typed path alone.
 */
export function canPickFolder(): boolean {
  return inDesktopShell();
}

/** The full path of the folder the person chose, or null when they cancelled. */
export async function pickFolder(title: string): Promise<string | null> {
  return invoke<string | null>('pick_folder', { title });
}

/** Whether a typed path is absolute: `/…` (Linux, macOS), `C:\…` or `\\server\…` (Windows). */
export function isAbsolutePath(path: string): boolean {
  return path.startsWith('/') || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith('\\\\');
}
