import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { I18nextProvider } from 'react-i18next';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createI18n } from '../i18n';
import { fakeEngine } from '../test/fakeEngine';
import { setBrowserLanguages } from '../test/render';
import { ImportButton } from './ImportButton';

const DOCUMENT = { schema_version: '1.0', session: { session_id: 'kept', messages: [] } };

describe('importing a conversation that is already here', () => {
  beforeEach(() => setBrowserLanguages('en-US', 'en'));

  it('says so plainly and offers to import it as a copy, which opens the copy', async () => {
    const { client, requests } = fakeEngine({
      'POST /v1/conversations/import': () =>
        Response.json(
          {
            type: 'ERROR_RESPONSE',
            content: {
              errorCode: 'ALREADY_EXISTS',
              message: 'the conversation “Trip plans” (kept) is already here; import it as a copy to keep both',
              details: { conversation_id: 'kept', title: 'Trip plans' },
            },
          },
          { status: 409 },
        ),
      'POST /v1/conversations/import?copy=true': () => Response.json({ conversation_id: 'copy-1', messages: 0, evidences: 0 }, { status: 201 }),
    });
    const onImported = vi.fn();
    const user = userEvent.setup();
    render(
      <I18nextProvider i18n={createI18n()}>
        <ImportButton client={client} onImported={onImported} />
      </I18nextProvider>,
    );
    const picker = screen.getByLabelText('Import a conversation (a context document or MCP-CP messages, JSON)');
    await user.upload(picker, new File([JSON.stringify(DOCUMENT)], 'trip.json', { type: 'application/json' }));

    const outcome = await screen.findByTestId('import-outcome');
    expect(outcome).toHaveTextContent('trip.json holds “Trip plans”, which is already among your conversations. Nothing was changed.');
    expect(outcome).not.toHaveTextContent('ALREADY_EXISTS');
    expect(onImported).not.toHaveBeenCalled();

    await user.click(screen.getByRole('button', { name: 'Import as a copy' }));
    await waitFor(() => expect(onImported).toHaveBeenCalledWith('copy-1'));
    expect(screen.getByTestId('import-outcome')).toHaveTextContent('Imported trip.json as a copy, beside the conversation you had');
    const copies = requests.filter((r) => r.path === '/v1/conversations/import?copy=true');
    expect(copies).toHaveLength(1);
    expect(copies[0]!.body).toEqual(DOCUMENT);
  });
});
