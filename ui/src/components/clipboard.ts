import { invoke } from '@tauri-apps/api/core';
import { inDesktopShell } from '../transport/ipc';

/**
 * Copies `text`: in the desktop app through the shell's clipboard (WebKitGTK's API and a copied
 * selection both reported success and left the clipboard empty); in a browser through the
 * clipboard API or, where it lacks one, a selection.
 */
export async function copyText(text: string): Promise<void> {
  if (inDesktopShell()) {
    await invoke('copy_text', { text });
    return;
  }
  if (navigator.clipboard?.writeText) {
    try {
      await navigator.clipboard.writeText(text);
      return;
    } catch {
      // Refused (no permission, not focused): the selection below still works.
    }
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.append(area);
  area.select();
  const copied = document.execCommand('copy');
  area.remove();
  if (!copied) throw new Error('the clipboard refused the text');
}

/**
 * The picture the person copied, as a PNG file, read through the desktop shell (WebKitGTK hands
 * a paste no image files); null in a browser or when the clipboard holds no picture.
 */
export async function pastedImage(): Promise<File | null> {
  if (!inDesktopShell()) return null;
  const bytes = await invoke<ArrayBuffer>('pasted_image', {});
  if (bytes.byteLength === 0) return null;
  return new File([bytes], 'pasted.png', { type: 'image/png' });
}
