import { render, screen } from '@testing-library/react';
import { I18nextProvider } from 'react-i18next';
import { describe, expect, it } from 'vitest';
import { createI18n } from '../i18n';
import { fakeEngine } from '../test/fakeEngine';
import { OverlayDialog } from './OverlayDialog';
import { loadImage, parseOverlay } from './overlay';

const SHA = 'b'.repeat(64);

describe('display_overlay with boxes', () => {
  it('draws each box in proportion to the image, whatever size it is shown at', () => {
    const parsed = parseOverlay({
      sourceImageId: SHA,
      overlayData: [
        { x: 100, y: 50, width: 200, height: 100, label: 'cat' },
        { x: 300, y: 150, width: 400, height: 400, label: 'beyond the edge' },
      ],
    });
    if (!('spec' in parsed)) throw new Error('refused');
    render(
      <I18nextProvider i18n={createI18n()}>
        <OverlayDialog spec={parsed.spec} image={{ sha256: SHA, url: 'blob:x', width: 400, height: 200 }} onClose={() => {}} />
      </I18nextProvider>,
    );
    const [cat, edge] = screen.getAllByTestId('webtool-box');
    expect(cat).toHaveStyle({ left: '25%', top: '25%', width: '50%', height: '50%' });
    expect(cat).toHaveTextContent('cat');
    // Clipped to the image.
    expect(edge).toHaveStyle({ left: '75%', top: '75%', width: '25%', height: '25%' });
    expect(screen.getByRole('img', { name: 'The image the assistant points at' })).toHaveAttribute('src', 'blob:x');
    expect(screen.getByRole('dialog', { name: 'Shown by the assistant' })).toHaveTextContent('2 marked areas: cat, beyond the edge');
  });

  it('fetches the attachment through the client and measures it', async () => {
    const png = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]);
    const { client, requests } = fakeEngine({ [`GET /v1/attachments/${SHA}`]: () => new Response(png, { headers: { 'content-type': 'image/png' } }) });
    const measured: string[] = [];
    const image = await loadImage(client, SHA, (url) => {
      measured.push(url);
      return Promise.resolve({ width: 640, height: 480 });
    });
    expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /v1/attachments/${SHA}`]);
    expect(image).toMatchObject({ sha256: SHA, width: 640, height: 480 });
    expect(measured).toEqual([image.url]);
    URL.revokeObjectURL(image.url);
  });

  it('refuses boxes that are not boxes', () => {
    expect(parseOverlay({ sourceImageId: SHA, overlayData: [{ x: 1, y: 1, width: 0, height: 2 }] })).toMatchObject({ error: { code: 'INVALID_ARGUMENTS', message: expect.stringContaining('overlayData[0]') } });
    expect(parseOverlay({ sourceImageId: 'nope', overlayData: 'x' })).toMatchObject({ error: { message: expect.stringContaining('sha256') } });
    expect(parseOverlay({ overlayData: 42 })).toMatchObject({ error: { code: 'INVALID_ARGUMENTS' } });
  });
});
