import type { TesseraClient } from '../transport/client';
import { webCapabilities } from './definitions';

/**
 * Announces this window's front-end tools for a conversation once (the engine remembers them
 * while it runs); `reset` after a reconnect, since a restarted engine has forgotten them.
 */
export class WebToolsAnnouncer {
  private readonly announced = new Map<string, Promise<boolean>>();

  constructor(private readonly client: TesseraClient) {}

  /**
   * Resolves true once the tools are announced for `conversationId`, false when that failed
   * (the conversation then goes on without them; the next call tries again). Never rejects.
   */
  ensure = (conversationId: string): Promise<boolean> => {
    const known = this.announced.get(conversationId);
    if (known) return known;
    const attempt = this.client.announceClientTools(conversationId, webCapabilities()).then(
      () => true,
      () => {
        this.announced.delete(conversationId);
        return false;
      },
    );
    this.announced.set(conversationId, attempt);
    return attempt;
  };

  reset(): void {
    this.announced.clear();
  }
}
