import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { I18nextProvider } from 'react-i18next';
import { describe, expect, it } from 'vitest';
import type { ConsentGrantView } from '../generated/ConsentGrantView';
import { createI18n } from '../i18n';
import { fakeEngine } from '../test/fakeEngine';
import type { TesseraClient } from '../transport/client';
import { PermissionsPage } from './PermissionsPage';

const ALWAYS: ConsentGrantView = {
  grant_id: 'g-always',
  tool: 'test_guarded_write',
  scope: 'always',
  conversation_id: null,
  conversation_title: null,
  created_at: '2026-11-20T10:00:00Z',
  used_at: '2026-11-21T09:30:00Z',
  revoked_at: null,
};
const IN_CONVERSATION: ConsentGrantView = {
  grant_id: 'g-conv',
  tool: 'screen_capture',
  scope: 'conversation',
  conversation_id: 'c1',
  conversation_title: 'Trip planning',
  created_at: '2026-11-22T10:00:00Z',
  used_at: null,
  revoked_at: null,
};

function renderPage(client: TesseraClient, language: 'en' | 'zh-CN' = 'en') {
  const user = userEvent.setup();
  render(
    <I18nextProvider i18n={createI18n(language)}>
      <PermissionsPage client={client} />
    </I18nextProvider>,
  );
  return { user };
}

describe('permissions page', () => {
  it('lists grants grouped by how far they reach, with conversation and dates', async () => {
    const { client } = fakeEngine({ 'GET /v1/grants': () => Response.json({ grants: [IN_CONVERSATION, ALWAYS] }) });
    renderPage(client);
    const always = await screen.findByRole('region', { name: /Always allowed/ });
    expect(within(always).getByText('test_guarded_write')).toBeInTheDocument();
    expect(within(always).getByText(/last used/)).toBeInTheDocument();
    const conversation = screen.getByRole('region', { name: /Allowed in one conversation/ });
    expect(within(conversation).getByText('in “Trip planning”')).toBeInTheDocument();
    expect(within(conversation).getByText(/not used yet/)).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: /Allowed once/ })).not.toBeInTheDocument();
  });

  it('revokes after a confirmation given by keyboard, and Escape keeps the grant', async () => {
    const { client, requests } = fakeEngine({
      'GET /v1/grants': () => Response.json({ grants: [ALWAYS] }),
      'DELETE /v1/grants/g-always': () => Response.json({ grant: { ...ALWAYS, revoked_at: '2026-11-24T10:00:00Z' } }),
    });
    const { user } = renderPage(client);
    const revoke = await screen.findByRole('button', { name: 'Revoke the permission for test_guarded_write' });
    revoke.focus();
    await user.keyboard('{Enter}');
    expect(screen.getByRole('group', { name: 'Revoke the permission for test_guarded_write?' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Yes, revoke' })).toHaveFocus();
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('button', { name: 'Yes, revoke' })).not.toBeInTheDocument();
    expect(requests.some((r) => r.method === 'DELETE')).toBe(false);

    await user.click(screen.getByRole('button', { name: 'Revoke the permission for test_guarded_write' }));
    await user.keyboard('{Enter}');
    await waitFor(() => expect(screen.queryByText('test_guarded_write')).not.toBeInTheDocument());
    expect(requests.filter((r) => r.method === 'DELETE').map((r) => r.path)).toEqual(['/v1/grants/g-always']);
    expect(screen.getByRole('status')).toHaveTextContent('Permission for test_guarded_write revoked');
    expect(screen.getByTestId('permissions-empty')).toHaveTextContent('No permissions granted yet.');
  });

  it('shows revoked grants on request, marked as revoked, without a revoke button', async () => {
    const revoked = { ...ALWAYS, revoked_at: '2026-11-23T08:00:00Z' };
    const { client } = fakeEngine({
      'GET /v1/grants': () => Response.json({ grants: [] }),
      'GET /v1/grants?include_revoked=true': () => Response.json({ grants: [revoked] }),
    });
    const { user } = renderPage(client);
    expect(await screen.findByTestId('permissions-empty')).toBeInTheDocument();
    await user.click(screen.getByRole('checkbox', { name: 'Show revoked permissions' }));
    const row = await screen.findByTestId('grant');
    expect(within(row).getByText('revoked')).toBeInTheDocument();
    expect(within(row).queryByRole('button')).not.toBeInTheDocument();
    // Listed apart: never under what is allowed.
    expect(within(screen.getByRole('region', { name: /Revoked/ })).getByTestId('grant')).toBe(row);
    expect(screen.queryByRole('region', { name: /Always allowed/ })).not.toBeInTheDocument();
  });

  it('says when the list or a revocation fails', async () => {
    let fail = true;
    const { client } = fakeEngine({
      'GET /v1/grants': () =>
        fail
          ? Response.json({ type: 'ERROR_RESPONSE', content: { errorCode: 'STORE_ERROR', message: 'disk on fire' } }, { status: 500 })
          : Response.json({ grants: [ALWAYS] }),
      'DELETE /v1/grants/g-always': () => Response.json({ type: 'ERROR_RESPONSE', content: { errorCode: 'NOT_FOUND', message: 'no grant' } }, { status: 404 }),
    });
    const { user } = renderPage(client);
    expect(await screen.findByRole('alert')).toHaveTextContent('Could not load the permissions: disk on fire (STORE_ERROR)');
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    await user.click(await screen.findByRole('button', { name: 'Revoke the permission for test_guarded_write' }));
    await user.click(screen.getByRole('button', { name: 'Yes, revoke' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Could not revoke the permission for test_guarded_write: no grant (NOT_FOUND)');
    expect(screen.getByText('test_guarded_write')).toBeInTheDocument();
  });

  it('speaks Chinese', async () => {
    const { client } = fakeEngine({ 'GET /v1/grants': () => Response.json({ grants: [ALWAYS] }) });
    renderPage(client, 'zh-CN');
    expect(await screen.findByRole('heading', { name: '权限' })).toBeInTheDocument();
    expect(await screen.findByRole('button', { name: '撤销 test_guarded_write 的权限' })).toBeInTheDocument();
  });
});
