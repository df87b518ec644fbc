/**
 * Choosing a folder with the system's own dialog. The desktop shell has no folder picker yet,
 * so the person types the path; once it has one (a `pick_folder` command, as `pick_gguf_file`
 * in localModels/pickFile.ts), `canPickFolder` says so and `pickFolder` calls it.
 */
export function canPickFolder(): boolean {
  return false;
}

/** The full path of the folder the person chose, or null when they cancelled. */
export function pickFolder(): Promise<string | null> {
  return Promise.resolve(null);
}

/** Whether a typed path is absolute: `/…` (Linux, macOS), `C:\…` or `\\server\…` (Windows). */
export function isAbsolutePath(path: string): boolean {
  return path.startsWith('/') || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith('\\\\');
}
