import { useLayoutEffect, type RefObject } from 'react';

/**
 * A modal layer's focus: on `target` as the layer shows (before the page is painted, not an
 * instant later: a key pressed meanwhile would go to what is now behind it), and back where it
 * was when the layer goes, if that element is still on the page.
 */
export function useModalFocus(target: RefObject<HTMLElement | null>): void {
  useLayoutEffect(() => {
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    target.current?.focus();
    return () => {
      if (before?.isConnected) before.focus();
    };
  }, [target]);
}
