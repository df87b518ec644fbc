import { invoke } from '@tauri-apps/api/core';
import { inDesktopShell } from '../../transport/ipc';

/**
 * How a cited file is opened in the app the system gives its kind: in the desktop shell, its
 * `open_project_file` command (which opens only a document inside a project's folders).
 * Undefined in a browser, which cannot open a local file: the pane then offers no "Open".
 */
export function systemOpener(): ((path: string) => Promise<void>) | undefined {
  if (!inDesktopShell()) return undefined;
  return (path: string) => invoke<void>('open_project_file', { path });
}
