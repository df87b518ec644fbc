import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import textStream from '../chat/fixtures/text.sse?raw';
import { fakeEngine, sseFrom } from '../test/fakeEngine';
import { renderApp } from '../test/render';

const row = (name: string, extra: object) => ({
  name,
  kind: 'openai',
  source: 'saved',
  default: false,
  base_url: `https://${name}.example/v1`,
  default_model: `${name}-m`,
  models: [`${name}-m`],
  requires_key: true,
  key: 'keyring',
  key_env_var: null,
  key_env_vars: [],
  has_key: true,
  config: {},
  ...extra,
});

function engine(detailModel: object | null, more: Parameters<typeof fakeEngine>[0] = {}) {
  return fakeEngine({
    'GET /v1/conversations': () =>
      Response.json({ conversations: [{ id: 'c1', title: 'Earlier', created_at: 'x', updated_at: 'x', pinned: false, archived: false, active_leaf_id: null, locale: null, actor: null, message_count: 0 }] }),
    'GET /v1/conversations/c1': () =>
      Response.json({ conversation: { id: 'c1', title: 'Earlier', message_count: 0 }, messages: [], siblings: {}, off_branch: [], ...(detailModel ? { model: detailModel } : {}) }),
    'GET /v1/interactions?conversation_id=c1': () => Response.json({ interactions: [] }),
    'GET /v1/conversations/c1/events': () => new Response('', { headers: { 'content-type': 'text/event-stream' } }),
    'GET /v1/settings': () => Response.json({ settings: {}, spent_today_usd: 0, model: { ready: true, provider: 'home', model: 'home-m' } }),
    'GET /v1/providers': () =>
      Response.json({
        providers: [
          row('home', { default: true, models: ['home-m', 'home-big'] }),
          row('other', { models: ['other-m', 'other-vision'] }),
          row('nokey', { key: 'missing', has_key: false }),
          row('openai', { source: 'preset', key: 'missing', has_key: false }),
        ],
        default: 'home',
        keyring_error: null,
        model: { ready: true, provider: 'home', model: 'home-m' },
      }),
    'POST /v1/messages': (r) => {
      const body = r.body as { type: string; contextId: string };
      if (body.type === 'CLIENT_CAPABILITIES') return Response.json({ type: 'SYSTEM_MESSAGE', content: { action: 'INFO', text: 'announced' } });
      return sseFrom(textStream, body.contextId, { 'x-tessera-run-id': 'run-1' });
    },
    ...more,
  });
}

const userInputs = (requests: { method: string; body: unknown }[]) =>
  requests.filter((r) => r.method === 'POST' && (r.body as { type?: string }).type === 'USER_INPUT').map((r) => r.body as { metadata?: { model?: unknown } });

describe('the model picker', () => {
  it('offers every model a provider serves, as Settings lists them, not only its default', async () => {
    const { client, requests } = engine(null, {
      'GET /v1/providers/home/models': () => Response.json({ provider: 'home', models: [{ id: 'home-m' }, { id: 'home-mini' }, { id: 'home-turbo', display_name: 'Home Turbo' }] }),
      'GET /v1/providers/other/models': () => Response.json({ type: 'ERROR_RESPONSE', content: { errorCode: 'PROVIDER_ERROR', message: 'unreachable' } }, { status: 502 }),
    });
    const { user } = renderApp({ client });
    const picker = await screen.findByTestId('model-picker');
    await waitFor(() => expect(picker).toHaveTextContent('home · home-m'));
    await user.click(picker);
    const menu = screen.getByRole('menu', { name: 'Models' });
    const names = (group: string) => within(within(menu).getByRole('group', { name: group })).getAllByRole('menuitemradio').map((i) => i.textContent);
    await waitFor(() => expect(names('home')).toEqual(['home-m', 'home-big', 'home-mini', 'home-turbo']));
    // A provider that cannot say keeps the models configured for it.
    expect(names('other')).toEqual(['other-m', 'other-vision']);
    expect(requests.filter((r) => r.path === '/v1/providers/nokey/models')).toHaveLength(0);

    await user.click(within(menu).getByRole('menuitemradio', { name: 'home-turbo' }));
    expect(picker).toHaveTextContent('home · home-turbo');
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'hello{Enter}');
    await waitFor(() => expect(userInputs(requests)).toHaveLength(1));
    expect(userInputs(requests)[0]?.metadata?.model).toEqual({ provider: 'home', model: 'home-turbo' });
  });

  it('shows the default model, lists the providers set up, and sends the pick with the next message only', async () => {
    const { client, requests } = engine(null);
    const { user } = renderApp({ client });
    const picker = await screen.findByTestId('model-picker');
    await waitFor(() => expect(picker).toHaveTextContent('home · home-m'));

    await user.click(picker);
    const menu = screen.getByRole('menu', { name: 'Models' });
    // Providers without a key, and presets never set up, are not offered.
    expect(within(menu).getAllByRole('group').map((g) => g.getAttribute('aria-label'))).toEqual(['home', 'other']);
    const checked = within(menu).getByRole('menuitemradio', { checked: true });
    expect(checked).toHaveTextContent('Default');
    expect(checked).toHaveFocus();
    // Keyboard: down to home-m, home-big, other-m; Enter picks it.
    await user.keyboard('{ArrowDown}{ArrowDown}{ArrowDown}{Enter}');
    expect(screen.queryByRole('menu')).not.toBeInTheDocument();
    expect(picker).toHaveTextContent('other · other-m');
    expect(picker).toHaveFocus();

    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'hello{Enter}');
    await screen.findByText('world');
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'and again{Enter}');
    await waitFor(() => expect(userInputs(requests)).toHaveLength(2));
    const [first, second] = userInputs(requests);
    expect(first?.metadata?.model).toEqual({ provider: 'other', model: 'other-m' });
    // Kept by the conversation: not said again.
    expect(second?.metadata?.model).toBeUndefined();
    expect(picker).toHaveTextContent('other · other-m');
  });

  it('shows the model a conversation keeps when it is opened, and Esc closes the menu without a change', async () => {
    const { client } = engine({ provider: 'other', model: 'other-vision' });
    const { user } = renderApp({ client });
    await user.click((await screen.findAllByTestId('conversation-item'))[0]!);
    const picker = screen.getByTestId('model-picker');
    await waitFor(() => expect(picker).toHaveTextContent('other · other-vision'));
    await user.click(picker);
    expect(screen.getByRole('menuitemradio', { checked: true })).toHaveTextContent('other-vision');
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('menu')).not.toBeInTheDocument();
    expect(picker).toHaveTextContent('other · other-vision');
  });
});
