/**
 * How the folded chat reaches the screen. What the code reads (`chatRef`) is always current;
 * what is drawn follows it at once for what the person did, or paced by `drawPacer.ts` for
 * streamed events, which come too fast to draw each.
 */
import { useCallback, useEffect, useRef } from 'react';
import { markdownClient } from '../components/markdownClient';
import { createDrawPacer } from '../drawPacer';
import type { ChatState } from '../reducer';
import type { SessionCore } from './useSessionStore';

export interface ChatDrawing {
  /** Folds `next` in and draws it now. */
  draw: (next: ChatState) => void;
  /** Folds `next` in and draws it when the pacer says. */
  drawSoon: (next: ChatState) => void;
}

export function useChatDrawing(core: SessionCore): ChatDrawing {
  const { dispatch, chatRef } = core;
  const pacerRef = useRef<ReturnType<typeof createDrawPacer> | null>(null);
  // The Markdown parses that came since the last drawing are handed to their blocks in the same
  // render (markdownClient.ts, `drawnWith`): a render of their own each would cost the page more.
  useEffect(() => markdownClient().drawnWith(() => pacerRef.current?.due() ?? false), []);

  const draw = useCallback(
    (next: ChatState) => {
      if (next === chatRef.current) return;
      chatRef.current = next;
      dispatch({ type: 'chatDrawn', chat: next });
    },
    [chatRef, dispatch],
  );

  const drawSoon = useCallback(
    (next: ChatState) => {
      if (next === chatRef.current) return;
      chatRef.current = next;
      pacerRef.current ??= createDrawPacer(() => {
        dispatch({ type: 'chatDrawn', chat: chatRef.current });
        markdownClient().deliverHeld();
      });
      pacerRef.current.request();
    },
    [chatRef, dispatch],
  );

  return { draw, drawSoon };
}
