import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { I18nextProvider } from 'react-i18next';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { JsonValue } from '../../generated/serde_json/JsonValue';
import { createI18n } from '../../i18n';
import { fakeEngine } from '../../test/fakeEngine';
import type { TesseraClient } from '../../transport/client';
import type { ToolCard } from '../reducer';
import { ToolCardView } from './ToolCardView';
import { AttachmentProvider } from './ToolImages';

const SHA = 'ab'.repeat(32);
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function card(result: JsonValue): ToolCard {
  return {
    id: 'call_img',
    name: 'test_image',
    parentId: null,
    children: [],
    phase: 'success',
    argumentsDraft: '',
    arguments: { color: '#ff8000' },
    dependsOn: [],
    result,
  };
}

function renderCard(client: TesseraClient | null, result: JsonValue, language: 'en' | 'zh-CN' = 'en') {
  const user = userEvent.setup();
  render(
    <I18nextProvider i18n={createI18n(language)}>
      <AttachmentProvider source={client}>
        <ToolCardView card={card(result)} tools={{}} />
      </AttachmentProvider>
    </I18nextProvider>,
  );
  return { user };
}

const withImage = { color: '#ff8000', images: [{ sha256: SHA, mime_type: 'image/png', width: 16, height: 16, name: '#ff8000 square' }] };

describe('tool card images', () => {
  const made: string[] = [];
  beforeEach(() => {
    made.length = 0;
    let n = 0;
    vi.spyOn(URL, 'createObjectURL').mockImplementation((blob) => {
      const url = `blob:test/${++n}-${(blob as Blob).size}`;
      made.push(url);
      return url;
    });
    vi.spyOn(URL, 'revokeObjectURL').mockImplementation(() => undefined);
  });
  afterEach(() => vi.restoreAllMocks());

  it('loads the image through the client with the token, names it, and opens it larger', async () => {
    const engine = fakeEngine({
      [`GET /v1/attachments/${SHA}`]: () => new Response(PNG, { status: 200, headers: { 'content-type': 'image/png' } }),
    });
    const { user } = renderCard(engine.client, withImage);

    const image = await screen.findByRole('img', { name: 'Image from test_image: #ff8000 square' });
    // The bytes came through the client (with its bearer token), shown from an object URL.
    expect(engine.requests).toHaveLength(1);
    expect(engine.requests[0]?.headers['Authorization']).toBe('Bearer test-token');
    expect(image).toHaveAttribute('src', `blob:test/1-${PNG.length}`);

    const open = screen.getByRole('button', { name: 'Open larger: Image from test_image: #ff8000 square' });
    open.focus();
    await user.keyboard('{Enter}');
    const viewer = screen.getByRole('dialog', { name: 'Image from test_image: #ff8000 square' });
    expect(within(viewer).getByRole('img')).toHaveAttribute('src', `blob:test/1-${PNG.length}`);
    expect(within(viewer).getByRole('button', { name: 'Close' })).toHaveFocus();
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(open).toHaveFocus();
  });

  it('says so when the image cannot be loaded, in the chosen language', async () => {
    const engine = fakeEngine({});
    renderCard(engine.client, withImage, 'zh-CN');
    expect(await screen.findByRole('note')).toHaveTextContent('test_image 返回的图片：#ff8000 square 无法加载。');
    expect(screen.queryByRole('img')).not.toBeInTheDocument();
  });

  it('shows no images for a result without them, or with entries that are not images', async () => {
    const engine = fakeEngine({});
    renderCard(engine.client, { color: '#ff8000', images: [{ sha256: 'nope', mime_type: 'image/png' }, { sha256: SHA, mime_type: 'text/html' }] });
    expect(screen.getByTestId('tool-result')).toHaveTextContent('#ff8000');
    expect(screen.queryByRole('group', { name: 'Images from test_image' })).not.toBeInTheDocument();
    await waitFor(() => expect(engine.requests).toHaveLength(0));
  });
});
