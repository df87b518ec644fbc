/**
 * Files the person attaches in the composer (button, drag and drop, paste), read into `data:`
 * URLs: they go with the message as USER_INPUT `attachments`, and the engine reads them by the
 * file_picker's rules. The limits are the engine's, said here before anything is sent.
 */
import type { Attachment } from '../generated/Attachment';
import type { AttachmentMetadata } from '../generated/AttachmentMetadata';
import type { AttachmentType } from '../generated/AttachmentType';
import type { DropRefusal } from '../generated/DropRefusal';

export const MAX_ATTACHMENT_BYTES = 20 * 1024 * 1024;
export const MAX_ATTACHMENTS = 20;

export interface PendingFile {
  id: string;
  name: string;
  size: number;
  mime: string;
  /** The bytes as a `data:` URL (an image's thumbnail too). */
  dataUrl: string;
}

/** Why a file cannot be attached, or null. */
export type Refusal = { name: string; reason: DropRefusal };

function readAsDataUrl(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => (typeof reader.result === 'string' ? resolve(reader.result) : reject(new Error('not read')));
    reader.onerror = () => reject(reader.error ?? new Error('not read'));
    reader.readAsDataURL(file);
  });
}

/** Reads `files` beside the `already` attached; those over the limits are refused by name. */
export async function readFiles(files: readonly File[], already: number): Promise<{ read: PendingFile[]; refused: Refusal[] }> {
  const read: PendingFile[] = [];
  const refused: Refusal[] = [];
  for (const file of files) {
    if (already + read.length >= MAX_ATTACHMENTS) {
      refused.push({ name: file.name, reason: 'tooMany' });
      continue;
    }
    if (file.size > MAX_ATTACHMENT_BYTES) {
      refused.push({ name: file.name, reason: 'tooBig' });
      continue;
    }
    try {
      const dataUrl = await readAsDataUrl(file);
      read.push({ id: `${Date.now()}-${Math.random()}`, name: file.name || 'pasted', size: file.size, mime: file.type, dataUrl });
    } catch {
      refused.push({ name: file.name, reason: 'unreadable' });
    }
  }
  return { read, refused };
}

/** The seed's attachment type of a file. */
function typeOf(mime: string): AttachmentType {
  if (mime.startsWith('image/')) return 'IMAGE';
  if (mime.startsWith('audio/')) return 'AUDIO';
  if (mime.startsWith('video/')) return 'VIDEO';
  return 'FILE';
}

export function toAttachment(file: PendingFile): Attachment {
  const metadata: AttachmentMetadata = { fileName: file.name, fileSize: file.size };
  if (file.mime) metadata.mimeType = file.mime;
  return { type: typeOf(file.mime), url: file.dataUrl, metadata };
}

/** "1.2 MB", "340 KB", "12 B". */
export function sizeLabel(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${bytes} B`;
}
