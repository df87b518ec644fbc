/**
 * Runs this window's front-end tools for the conversation shown: announces them (on opening a
 * conversation and again after a reconnect), runs each call of theirs that arrives on the
 * stream once, posts its TOOL_CALL_RESPONSE, and shows what display_overlay asks for.
 */
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ChatState } from '../chat/reducer';
import type { ConnectionState } from '../transport/connection';
import { ApiError, type TesseraClient } from '../transport/client';
import type { WebToolsAnnouncer } from './announcer';
import { DISPLAY_OVERLAY, HIGHLIGHT_ELEMENT } from './definitions';
import { highlightElement, highlightedName } from './highlight';
import { OverlayDialog } from './OverlayDialog';
import { loadImage, parseOverlay, type OverlaySpec, type ShownImage } from './overlay';
import { pendingWebCalls, stillWaiting, type PendingWebCall } from './pending';
import { fail, ok, toToolResult, type Outcome } from './result';

export interface WebToolsHostProps {
  client: TesseraClient | null;
  announcer: WebToolsAnnouncer | null;
  conversationId: string | null;
  chat: ChatState;
  connection: ConnectionState;
  reconnecting: boolean;
}

interface Shown {
  callId: string;
  spec: OverlaySpec;
  image: ShownImage | null;
}

/** A response can overtake the engine's start of the wait by a moment: try again briefly. */
const RESPOND_RETRIES_MS = [150, 400, 1_000];

function sleep(ms: number) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function WebToolsHost({ client, announcer, conversationId, chat, connection, reconnecting }: WebToolsHostProps) {
  const { t } = useTranslation();
  const [overlay, setOverlay] = useState<Shown | null>(null);
  const [said, setSaid] = useState('');
  const chatRef = useRef(chat);
  // Before the effects and timers that read it, and never from a render React may throw away.
  useLayoutEffect(() => {
    chatRef.current = chat;
  }, [chat]);
  /** Calls this window has run (or is running). */
  const started = useRef(new Set<string>());
  const closeTimer = useRef<ReturnType<typeof setTimeout> | null>(null);

  // Announce for the conversation shown; a new one is announced by the send itself, first.
  useEffect(() => {
    if (announcer && conversationId && connection === 'connected' && !reconnecting) void announcer.ensure(conversationId);
  }, [announcer, conversationId, connection, reconnecting]);

  // After the stream or the connection was lost, the engine may be a new process.
  const wasCut = useRef(false);
  useEffect(() => {
    const cut = reconnecting || connection === 'error';
    if (cut) wasCut.current = true;
    else if (wasCut.current && connection === 'connected') {
      wasCut.current = false;
      announcer?.reset();
      if (conversationId) void announcer?.ensure(conversationId);
    }
  }, [announcer, connection, conversationId, reconnecting]);

  // A new conversation shown: a previous one's overlay goes.
  useEffect(() => {
    setOverlay(null);
    started.current.clear();
  }, [conversationId]);

  const closeOverlay = useCallback(() => {
    if (closeTimer.current) clearTimeout(closeTimer.current);
    closeTimer.current = null;
    setOverlay(null);
  }, []);

  useEffect(() => {
    const url = overlay?.image?.url;
    return () => {
      if (url) URL.revokeObjectURL(url);
    };
  }, [overlay]);

  const showOverlay = useCallback(
    async (callId: string, args: unknown): Promise<Outcome> => {
      const parsed = parseOverlay(args);
      if ('error' in parsed) return parsed.error;
      const { spec } = parsed;
      let image: ShownImage | null = null;
      if (spec.sourceImageId) {
        if (!client) return fail('UNAVAILABLE', 'this window is not connected to the engine');
        try {
          image = await loadImage(client, spec.sourceImageId);
        } catch (error) {
          const why = error instanceof ApiError && error.status === 404 ? `no attachment ${spec.sourceImageId} is stored` : error instanceof Error ? error.message : String(error);
          return fail('IMAGE_UNAVAILABLE', why);
        }
      }
      if (closeTimer.current) clearTimeout(closeTimer.current);
      setOverlay({ callId, spec, image });
      if (spec.durationMs !== null) closeTimer.current = setTimeout(closeOverlay, spec.durationMs);
      return ok({
        shown: true,
        style: spec.style,
        boxes: spec.boxes.length,
        ...(image ? { image: { sha256: image.sha256, width: image.width, height: image.height } } : {}),
        closesAfterMs: spec.durationMs,
        dismissable: true,
      });
    },
    [client, closeOverlay],
  );

  const run = useCallback(
    async (call: PendingWebCall, conversation: string) => {
      const started = performance.now();
      let outcome: Outcome;
      if (call.name === HIGHLIGHT_ELEMENT) {
        outcome = highlightElement(call.arguments);
        if (outcome.status === 'SUCCESS') setSaid(t('webtools.highlighted', { name: highlightedName() }));
      } else if (call.name === DISPLAY_OVERLAY) {
        outcome = await showOverlay(call.callId, call.arguments);
      } else {
        outcome = fail('NOT_FOUND', `this window does not run ${String(call.name)}`);
      }
      if (!client) return;
      const result = toToolResult(call.callId, outcome, performance.now() - started);
      for (let attempt = 0; ; attempt++) {
        try {
          await client.respondToolCalls(conversation, [result]);
          return;
        } catch (error) {
          const retry = RESPOND_RETRIES_MS[attempt];
          const early = error instanceof ApiError && error.code === 'NO_WAITING_CALL';
          // Anything else (the engine gone, the call timed out meanwhile) leaves the call to its fallback.
          if (!early || retry === undefined || !stillWaiting(chatRef.current, call.callId)) return;
          await sleep(retry);
        }
      }
    },
    [client, showOverlay, t],
  );

  useEffect(() => {
    if (!conversationId) return;
    if (!pendingWebCalls(chat).some((c) => !started.current.has(c.callId))) return;
    // Decided once the events stop coming for a moment, on the newest state: a replay after a
    // reload brings a finished call's result right behind the call itself.
    const timer = setTimeout(() => {
      for (const call of pendingWebCalls(chatRef.current)) {
        if (started.current.has(call.callId)) continue;
        started.current.add(call.callId);
        void run(call, conversationId);
      }
    }, 0);
    return () => clearTimeout(timer);
  }, [chat, conversationId, run]);

  return (
    <>
      <p className="visually-hidden" aria-live="polite" data-testid="webtool-status">
        {said}
      </p>
      {overlay && <OverlayDialog key={overlay.callId} spec={overlay.spec} image={overlay.image} onClose={closeOverlay} />}
    </>
  );
}
