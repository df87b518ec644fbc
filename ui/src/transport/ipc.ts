/**
 * The transport inside the desktop shell: the same requests as `httpTransport`, carried over
 * Tauri IPC to the router the shell runs in process (docs/design.md). `api_request` answers with
 * the status and headers; the body arrives as frames on a channel, so an event stream flows as it
 * does over HTTP. Aborting the request (or cancelling its body) tells the shell to stop pumping,
 * which ends the subscription behind it.
 */
import { Channel, invoke, isTauri } from '@tauri-apps/api/core';
import type { ApiRequest } from '../generated/ApiRequest';
import type { ApiResponseHead } from '../generated/ApiResponseHead';
import type { BodyFrame } from '../generated/BodyFrame';
import { NetworkError, newId, type TesseraClient, type Transport } from './client';

/** The two things the transport needs from Tauri, injectable for tests. */
export interface IpcBridge {
  invoke<T>(command: string, args: Record<string, unknown>): Promise<T>;
  /** A channel object to hand to `invoke`, calling `onFrame` for each frame the shell sends. */
  channel(onFrame: (frame: BodyFrame) => void): unknown;
}

export function tauriBridge(): IpcBridge {
  return {
    invoke: (command, args) => invoke(command, args),
    channel: (onFrame) => new Channel<BodyFrame>(onFrame),
  };
}

/** Whether this page runs inside the desktop shell. */
export function inDesktopShell(): boolean {
  return isTauri();
}

function abortError(): DOMException {
  return new DOMException('The operation was aborted.', 'AbortError');
}

/** The bytes of a `bytes` frame (a picture, a PDF: never decoded as text on the way). */
export function fromBase64(base64: string): Uint8Array {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Statuses whose Response must have no body. */
const NO_BODY = new Set([101, 204, 205, 304]);

export function ipcTransport(bridge: IpcBridge = tauriBridge()): Transport {
  return {
    async send(request) {
      if (request.signal?.aborted) throw abortError();
      const id = newId();
      let finished = false;
      const stop = () => {
        void bridge.invoke('api_abort', { id }).catch(() => undefined);
      };
      let controller: ReadableStreamDefaultController<Uint8Array> | null = null;
      // Frames may arrive before `api_request` answers: they wait in the stream's queue.
      const early: BodyFrame[] = [];
      const encoder = new TextEncoder();
      const apply = (frame: BodyFrame) => {
        if (finished) return;
        if (!controller) {
          early.push(frame);
          return;
        }
        switch (frame.kind) {
          case 'chunk':
            controller.enqueue(encoder.encode(frame.text));
            break;
          case 'bytes':
            controller.enqueue(fromBase64(frame.base64));
            break;
          case 'end':
            finished = true;
            controller.close();
            break;
          case 'error':
            finished = true;
            controller.error(new NetworkError(new Error(frame.message)));
            break;
          default: {
            const never: never = frame;
            throw new Error(`unknown body frame ${JSON.stringify(never)}`);
          }
        }
      };
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          controller = c;
          for (const frame of early.splice(0)) apply(frame);
        },
        cancel() {
          if (finished) return;
          finished = true;
          stop();
        },
      });
      const onAbort = () => {
        if (finished) return;
        finished = true;
        controller?.error(abortError());
        stop();
      };
      request.signal?.addEventListener('abort', onAbort, { once: true });

      const headers = Object.entries(request.headers ?? {});
      const apiRequest: ApiRequest = {
        method: request.method,
        path: request.path,
        headers,
        body: request.body === undefined ? null : JSON.stringify(request.body),
      };
      let head: ApiResponseHead;
      try {
        head = await bridge.invoke<ApiResponseHead>('api_request', {
          id,
          request: apiRequest,
          onBody: bridge.channel(apply),
        });
      } catch (error) {
        request.signal?.removeEventListener('abort', onAbort);
        throw new NetworkError(error);
      }
      // Aborted while the shell was starting the request: its pump exists only now.
      if (request.signal?.aborted) {
        stop();
        throw abortError();
      }
      const hasBody = !NO_BODY.has(head.status) && request.method !== ('HEAD' as string);
      if (!hasBody) {
        finished = true;
        stop();
      }
      return new Response(hasBody ? body : null, { status: head.status, headers: head.headers });
    },
  };
}

/**
 * Tells the shell the window is interactive: after the first answer from the engine and the
 * paint that follows it (start-up figure, logs).
 */
export function reportReady(client: TesseraClient, bridge: IpcBridge = tauriBridge()): void {
  void client
    .listConversations()
    .catch(() => undefined)
    .then(
      () =>
        new Promise<void>((resolve) => {
          requestAnimationFrame(() => requestAnimationFrame(() => resolve()));
        }),
    )
    .then(() => bridge.invoke('ui_ready', {}))
    .catch(() => undefined);
}

/** The shell's diagnostics report (text, no secrets). */
export function shellDiagnostics(bridge: IpcBridge = tauriBridge()): Promise<string> {
  return bridge.invoke<string>('diagnostics', {});
}
