import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeEngine } from '../test/fakeEngine';
import { renderApp } from '../test/render';

function engine(takesImages: boolean) {
  return fakeEngine({
    'GET /v1/conversations': () => Response.json({ conversations: [] }),
    'GET /v1/settings': () => Response.json({ settings: {}, spent_today_usd: 0, model: { ready: true, provider: 'lab', model: 'scripted-model' } }),
    'GET /v1/providers/lab/images': () => Response.json({ provider: 'lab', model: 'scripted-model', takes_images: takesImages, source: 'guessed' }),
  });
}

const png = () => new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], 'shot.png', { type: 'image/png' });

describe('a picture for a model that cannot see images', () => {
  it('is said plainly beside the picture, before anything is sent, as the engine decides it', async () => {
    const { client, requests } = engine(false);
    const { user } = renderApp({ client });
    await waitFor(() => expect(screen.getByTestId('attach-button')).toBeEnabled());
    await waitFor(() => expect(requests.some((r) => r.path === '/v1/providers/lab/images?model=scripted-model')).toBe(true));
    // A file that is no picture: nothing to say.
    await user.upload(screen.getByTestId('attach-input'), new File(['# Notes'], 'notes.md', { type: 'text/markdown' }));
    await screen.findByTestId('composer-file');
    expect(screen.queryByTestId('image-unseen')).not.toBeInTheDocument();
    await user.upload(screen.getByTestId('attach-input'), png());
    expect(await screen.findByTestId('image-unseen')).toHaveTextContent(
      'scripted-model cannot see images: it will be told a picture was attached, not shown it. Pick a model that takes images, or say in Settings → Providers that this one does.',
    );
    // The picture removed: the note goes with it.
    await user.click(screen.getByRole('button', { name: 'Remove shot.png' }));
    expect(screen.queryByTestId('image-unseen')).not.toBeInTheDocument();
  });

  it('is not said for a model that takes images', async () => {
    const { client, requests } = engine(true);
    const { user } = renderApp({ client });
    await waitFor(() => expect(screen.getByTestId('attach-button')).toBeEnabled());
    await waitFor(() => expect(requests.some((r) => r.path.startsWith('/v1/providers/lab/images'))).toBe(true));
    await user.upload(screen.getByTestId('attach-input'), png());
    await screen.findByTestId('composer-file');
    expect(screen.queryByTestId('image-unseen')).not.toBeInTheDocument();
  });
});
