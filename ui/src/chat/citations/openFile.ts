import { inDesktopShell } from '../../transport/ipc';

/**
 * How a cited file is opened in the app the system gives its kind, where that can be done: the
 * desktop shell, once it has a command for it (a later Tauri command, e.g.
 * `invoke('open_path', { path })`). Undefined in a browser, which cannot open a local file, and,
 * until then, in the desktop too: the pane offers "Open" only when this gives a function.
 */
export function systemOpener(): ((path: string) => Promise<void>) | undefined {
  if (!inDesktopShell()) return undefined;
  return undefined;
}
