import { createContext, useEffect, useState } from 'react';
import type { ConversationModel } from '../generated/ConversationModel';
import type { ImageInput } from '../generated/ImageInput';
import type { SettingsView } from '../generated/SettingsView';
import type { TesseraClient } from '../transport/client';
import { routes } from '../transport/routes';

/**
 * Whether the model that answers the next message takes images, as the engine decides it (the
 * person's setting for that model, else a guess from its name); null while unknown.
 */
export function useImageInput(client: TesseraClient | null, model: ConversationModel | null, changed: unknown): ImageInput | null {
  const [found, setFound] = useState<ImageInput | null>(null);
  useEffect(() => {
    setFound(null);
    if (!client) return undefined;
    let live = true;
    const ask = async () => {
      let chosen = model;
      if (!chosen) {
        const settings = await client.json<SettingsView>({ method: 'GET', path: routes.settings() });
        const status = settings.model;
        if (!status?.ready || !status.provider || !status.model) return;
        chosen = { provider: status.provider, model: status.model };
      }
      const answer = await client.json<ImageInput>({ method: 'GET', path: routes.providerImages(chosen.provider, chosen.model) });
      if (live) setFound(answer);
    };
    ask().catch(() => undefined);
    return () => {
      live = false;
    };
  }, [client, model, changed]);
  return found;
}

/**
 * The same answer for what a conversation shows below the composer (a consent dialog asking to
 * capture the screen says when the model could not see the capture).
 */
export const ImageInputContext = createContext<ImageInput | null>(null);
