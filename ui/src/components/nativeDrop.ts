/**
 * Files dropped on the desktop window from another application. The shell takes such a drop
 * from the webview (WebKitGTK's own drop handler never sees files from outside): the page hears
 * of it through Tauri's drag-and-drop events and reads the files the person dropped through the
 * shell's `dropped_files` and `dropped_file`, by their place in that drop.
 */
import { useEffect, useLayoutEffect, useRef } from 'react';
import { invoke } from '@tauri-apps/api/core';
import { getCurrentWebview } from '@tauri-apps/api/webview';
import type { DroppedFile } from '../generated/DroppedFile';
import { inDesktopShell } from '../transport/ipc';
import type { Refusal } from './attachments';

export type Invoke = <T>(command: string, args: Record<string, unknown>) => Promise<T>;

/** The last drop's files as `File`s, and those the shell refused by name. */
export async function readDroppedFiles(call: Invoke = invoke): Promise<{ files: File[]; refused: Refusal[] }> {
  const listed = await call<DroppedFile[]>('dropped_files', {});
  const files: File[] = [];
  const refused: Refusal[] = [];
  for (const [index, entry] of listed.entries()) {
    if (entry.refused) {
      refused.push({ name: entry.name, reason: entry.refused });
      continue;
    }
    try {
      const bytes = await call<ArrayBuffer>('dropped_file', { index });
      files.push(new File([bytes], entry.name, { type: entry.mime }));
    } catch {
      refused.push({ name: entry.name, reason: 'unreadable' });
    }
  }
  return { files, refused };
}

/**
 * In the desktop shell: `onHover(true)` while files are dragged over the window, `onDrop` with
 * what was dropped. Nothing in a browser, where the page's own drop handler sees the files.
 */
export function useNativeDrop(onHover: (over: boolean) => void, onDrop: (files: File[], refused: Refusal[]) => void): void {
  const latest = useRef({ onHover, onDrop });
  useLayoutEffect(() => {
    latest.current = { onHover, onDrop };
  });
  useEffect(() => {
    if (!inDesktopShell()) return;
    let unlisten: (() => void) | null = null;
    let gone = false;
    void getCurrentWebview()
      .onDragDropEvent((event) => {
        const payload = event.payload;
        switch (payload.type) {
          case 'enter':
          case 'over':
            latest.current.onHover(true);
            break;
          case 'leave':
            latest.current.onHover(false);
            break;
          case 'drop':
            latest.current.onHover(false);
            void readDroppedFiles().then(
              ({ files, refused }) => latest.current.onDrop(files, refused),
              () => latest.current.onDrop([], payload.paths.map((path) => ({ name: path.split('/').pop() ?? path, reason: 'unreadable' }))),
            );
            break;
        }
      })
      .then((stop) => {
        if (gone) stop();
        else unlisten = stop;
      });
    return () => {
      gone = true;
      unlisten?.();
    };
  }, []);
}
