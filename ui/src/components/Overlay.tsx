import type { ReactNode } from 'react';
import { createPortal } from 'react-dom';

/**
 * Puts a modal layer (a dialog and its backdrop, an image viewer) at the end of the page, out
 * of where it is opened. The conversation log contains its own layout and painting
 * (`contain: strict`, so a growing answer redraws only itself), and inside it a
 * `position: fixed` layer would be placed and clipped by the log instead of the window.
 */
export function Overlay({ children }: { children: ReactNode }) {
  return createPortal(children, document.body);
}
