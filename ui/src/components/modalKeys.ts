import type { KeyboardEvent } from 'react';

/** What can take the focus inside a modal layer. */
export const FOCUSABLE =
  'button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * A modal layer's keys: Esc closes it (and goes no further), Tab and Shift+Tab stay inside it,
 * going round from the last control to the first and back.
 */
export function modalKeyDown(event: KeyboardEvent<HTMLElement>, layer: HTMLElement | null, onClose: () => void): void {
  if (event.key === 'Escape') {
    event.preventDefault();
    event.stopPropagation();
    onClose();
    return;
  }
  if (event.key !== 'Tab' || !layer) return;
  const items = Array.from(layer.querySelectorAll<HTMLElement>(FOCUSABLE));
  const first = items[0];
  const last = items.at(-1);
  if (!first || !last) return;
  if (event.shiftKey && (document.activeElement === first || document.activeElement === layer)) {
    event.preventDefault();
    last.focus();
  } else if (!event.shiftKey && document.activeElement === last) {
    event.preventDefault();
    first.focus();
  }
}
