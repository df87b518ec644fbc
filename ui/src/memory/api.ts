/**
 * The memory endpoints of `/v1` (docs/api.md, "Memories"), over the app's client so they go the
 * same way as the chat (HTTP in a browser, IPC in the shell).
 */
import type { TFunction } from 'i18next';
import type { Memory } from '../generated/Memory';
import type { MemoryEdit } from '../generated/MemoryEdit';
import type { MemoryList } from '../generated/MemoryList';
import type { MemoryScope } from '../generated/MemoryScope';
import { ApiError, type TesseraClient } from '../transport/client';
import { describeError } from '../transport/describeError';
import { routes } from '../transport/routes';

export type { Memory, MemoryScope };

/** The most a memory's text may hold (the engine refuses more). */
export const MEMORY_MAX_CHARS = 4000;

export class MemoriesApi {
  constructor(private readonly client: TesseraClient) {}

  static of(client: TesseraClient): MemoriesApi {
    return new MemoriesApi(client);
  }

  /** The memories of `scope` (every one without it), those matching `q` when it has words. */
  async list(scope: MemoryScope | null, q: string): Promise<Memory[]> {
    const words = q.trim();
    const path = routes.memories({ scope: scope ?? undefined, q: words === '' ? undefined : words });
    const body = await this.client.json<MemoryList>({ method: 'GET', path });
    return body.memories;
  }

  edit(id: string, content: string): Promise<Memory> {
    const body: MemoryEdit = { content };
    return this.client.json({ method: 'PATCH', path: routes.memory(id), body });
  }

  /** Forgets it: no later prompt includes it. */
  async forget(id: string): Promise<void> {
    await this.client.json({ method: 'DELETE', path: routes.memory(id) });
  }
}

/**
 * A failed memory call in words: a refused text (400) and a memory that is gone (404) in the
 * person's language with the engine's own words after them; anything else as `describeError`
 * puts it.
 */
export function memoryErrorText(t: TFunction, error: unknown): string {
  if (error instanceof ApiError && (error.code === 'BAD_REQUEST' || error.status === 400)) {
    return t('memory.withDetail', { what: t('memory.refusedText', { max: MEMORY_MAX_CHARS.toLocaleString() }), detail: error.message });
  }
  if (error instanceof ApiError && (error.code === 'NOT_FOUND' || error.status === 404)) {
    return t('memory.withDetail', { what: t('memory.gone'), detail: error.message });
  }
  return describeError(error);
}
