import { describe, expect, it } from 'vitest';
import type { BodyFrame } from '../generated/BodyFrame';
import { TesseraClient } from './client';
import { ipcTransport, type IpcBridge } from './ipc';

/** A shell that answers each `api_request` with a script of frames, and records aborts. */
function scriptedShell(status: number, frames: BodyFrame[], options: { framesBeforeHead?: boolean } = {}) {
  const calls: { command: string; args: Record<string, unknown> }[] = [];
  let push: ((frame: BodyFrame) => void) | null = null;
  const bridge: IpcBridge = {
    channel: (onFrame) => ({ onFrame }),
    invoke<T>(command: string, args: Record<string, unknown>): Promise<T> {
      calls.push({ command, args });
      if (command !== 'api_request') return Promise.resolve(undefined as T);
      const channel = args['onBody'] as { onFrame: (frame: BodyFrame) => void };
      push = channel.onFrame;
      if (options.framesBeforeHead) frames.forEach((f) => channel.onFrame(f));
      else setTimeout(() => frames.forEach((f) => channel.onFrame(f)), 0);
      return Promise.resolve({ status, headers: [['content-type', 'application/json'], ['x-tessera-run-id', 'run_1']] } as T);
    },
  };
  return { bridge, calls, push: (frame: BodyFrame) => push?.(frame) };
}

describe('ipcTransport', () => {
  it('sends the request as the shell expects it and reads the body from the frames', async () => {
    const shell = scriptedShell(200, [
      { kind: 'chunk', text: '{"conversations": [' },
      { kind: 'chunk', text: ']}' },
      { kind: 'end' },
    ]);
    const client = new TesseraClient(ipcTransport(shell.bridge));
    await expect(client.listConversations()).resolves.toEqual([]);
    const call = shell.calls[0];
    expect(call?.command).toBe('api_request');
    expect(call?.args['request']).toEqual({
      method: 'GET',
      path: '/v1/conversations',
      headers: [['Accept', 'application/json']],
      body: null,
    });
  });

  it('carries a picture as its bytes, every byte value intact', async () => {
    const bytes = new Uint8Array(512);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7 + 0x89) % 256;
    const half = (part: Uint8Array) => btoa(String.fromCharCode(...part));
    const shell = scriptedShell(200, [
      { kind: 'bytes', base64: half(bytes.subarray(0, 300)) },
      { kind: 'bytes', base64: half(bytes.subarray(300)) },
      { kind: 'end' },
    ]);
    const response = await ipcTransport(shell.bridge).send({ method: 'GET', path: '/v1/attachments/abc' });
    const received = new Uint8Array(await response.arrayBuffer());
    expect(received).toEqual(bytes);
  });

  it('keeps frames that arrive before the head', async () => {
    const shell = scriptedShell(200, [{ kind: 'chunk', text: 'early' }, { kind: 'end' }], { framesBeforeHead: true });
    const response = await ipcTransport(shell.bridge).send({ method: 'GET', path: '/v1/x' });
    expect(await response.text()).toBe('early');
    expect(response.headers.get('x-tessera-run-id')).toBe('run_1');
  });

  it('turns an error status into the API error the UI shows', async () => {
    const body = JSON.stringify({
      type: 'ERROR_RESPONSE',
      content: { errorCode: 'ENGINE_UNAVAILABLE', message: 'Tessera could not open its data: locked by pid 42' },
    });
    const shell = scriptedShell(503, [{ kind: 'chunk', text: body }, { kind: 'end' }]);
    const client = new TesseraClient(ipcTransport(shell.bridge));
    await expect(client.listConversations()).rejects.toMatchObject({
      status: 503,
      code: 'ENGINE_UNAVAILABLE',
      message: expect.stringContaining('locked by pid 42'),
    });
  });

  it('a body that breaks off fails the read, and aborting tells the shell to stop', async () => {
    const broken = scriptedShell(200, [{ kind: 'chunk', text: 'par' }, { kind: 'error', message: 'gone' }]);
    const response = await ipcTransport(broken.bridge).send({ method: 'GET', path: '/v1/x' });
    await expect(response.text()).rejects.toThrow('gone');

    const live = scriptedShell(200, []);
    const controller = new AbortController();
    const stream = await ipcTransport(live.bridge).send({ method: 'GET', path: '/v1/e', signal: controller.signal });
    const reader = stream.body!.getReader();
    live.push({ kind: 'chunk', text: 'data: 1\n\n' });
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: 1\n\n');
    controller.abort();
    await expect(reader.read()).rejects.toThrow(/abort/i);
    const id = (live.calls[0]?.args['id'] as string) ?? '';
    expect(live.calls.some((c) => c.command === 'api_abort' && c.args['id'] === id)).toBe(true);
  });
});
