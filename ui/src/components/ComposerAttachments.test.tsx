import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import textStream from '../chat/fixtures/text.sse?raw';
import { fakeEngine, sseFrom } from '../test/fakeEngine';
import { renderApp } from '../test/render';

function engine() {
  return fakeEngine({
    'GET /v1/conversations': () => Response.json({ conversations: [] }),
    'GET /v1/settings': () => Response.json({ settings: {}, spent_today_usd: 0, model: { ready: true, provider: 'p', model: 'm' } }),
    'POST /v1/messages': (r) => {
      const body = r.body as { type: string; contextId: string };
      if (body.type === 'CLIENT_CAPABILITIES') return Response.json({ type: 'SYSTEM_MESSAGE', content: { action: 'INFO', text: 'announced' } });
      return sseFrom(textStream, body.contextId, { 'x-tessera-run-id': 'run-1' });
    },
  });
}

describe('attaching files in the composer', () => {
  it('sends picked files with the message as USER_INPUT attachments, and shows them on it', async () => {
    const { client, requests } = engine();
    const { user } = renderApp({ client });
    await waitFor(() => expect(screen.getByTestId('attach-button')).toBeEnabled());
    const png = new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], 'shot.png', { type: 'image/png' });
    const notes = new File(['# Notes'], 'notes.md', { type: 'text/markdown' });
    await user.upload(screen.getByTestId('attach-input'), [png, notes]);
    const chips = await screen.findAllByTestId('composer-file');
    expect(chips.map((c) => c.textContent)).toEqual(['shot.png4 B×', 'notes.md7 B×']);
    // One removed, by keyboard-reachable button.
    await user.click(screen.getByRole('button', { name: 'Remove notes.md' }));
    expect(screen.getAllByTestId('composer-file')).toHaveLength(1);
    // A message of files alone can be sent.
    expect(screen.getByRole('button', { name: 'Send' })).toBeEnabled();
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'What is this?{Enter}');
    await screen.findByText('world');
    const sent = requests.find((r) => (r.body as { type?: string } | undefined)?.type === 'USER_INPUT')?.body as {
      content: { text: string; attachments: { type: string; url: string; metadata: { fileName: string; fileSize: number; mimeType: string } }[] };
    };
    expect(sent.content.text).toBe('What is this?');
    expect(sent.content.attachments).toEqual([{ type: 'IMAGE', url: 'data:image/png;base64,iVBORw==', metadata: { fileName: 'shot.png', fileSize: 4, mimeType: 'image/png' } }]);
    expect(screen.queryByTestId('composer-file')).not.toBeInTheDocument();
    expect(within(screen.getByTestId('user-message')).getByTestId('message-file')).toHaveTextContent('shot.png');
  });

  it('takes files dropped on the box or pasted, and refuses one over 20 MB by name', async () => {
    const { client } = engine();
    const { user } = renderApp({ client });
    await waitFor(() => expect(screen.getByTestId('attach-button')).toBeEnabled());
    const input = screen.getByRole('textbox', { name: 'Message' });
    input.focus();
    await user.paste({ files: [new File(['a,b'], 'table.csv', { type: 'text/csv' })], getData: () => '', types: ['Files'] } as unknown as DataTransfer);
    expect(await screen.findByTestId('composer-file')).toHaveTextContent('table.csv');
    const huge = new File([new Uint8Array(20 * 1024 * 1024 + 1)], 'huge.mov', { type: 'video/quicktime' });
    await user.upload(screen.getByTestId('attach-input'), huge);
    expect(await screen.findByTestId('attach-refused')).toHaveTextContent('huge.mov is over 20 MB and was not attached.');
    expect(screen.getAllByTestId('composer-file')).toHaveLength(1);
  });
});
