import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeEngine } from '../test/fakeEngine';
import { renderApp } from '../test/render';

const row = (name: string) => ({
  name,
  kind: 'openai',
  source: 'preset',
  default: false,
  base_url: `https://${name}.example/v1`,
  default_model: 'm',
  models: ['m'],
  requires_key: true,
  key: 'missing',
  key_env_var: null,
  key_env_vars: [],
  has_key: false,
  config: { name, kind: 'openai', base_url: `https://${name}.example/v1`, default_model: 'm', requires_key: true },
});

describe('the first run', () => {
  it('with no model, the empty chat sets one up: pick, paste the key, tested, made the default', async () => {
    let ready = false;
    const { client, requests } = fakeEngine({
      'GET /v1/conversations': () => Response.json({ conversations: [] }),
      'GET /v1/settings': () => Response.json({ settings: {}, spent_today_usd: 0, model: { ready } }),
      'GET /v1/providers': () =>
        Response.json({ providers: ['ollama', 'openai', 'deepseek'].map(row), default: null, keyring_error: null, model: { ready, ...(ready ? {} : { reason: 'no provider' }) } }),
      'PUT /v1/providers/deepseek/key': () => Response.json({ provider: 'deepseek', stored: true, env_override: null, not_required: false, model: { ready: false } }),
      'POST /v1/providers/deepseek/check': () => Response.json({ provider: 'deepseek', ok: true, model: 'm', latency_ms: 40, models: 3 }),
      'GET /v1/providers/deepseek/models': () => Response.json({ provider: 'deepseek', models: [{ id: 'deepseek-reasoner' }, { id: 'm' }] }),
      'POST /v1/providers': () => Response.json({ replaced: false, config: {}, model: { ready: false } }, { status: 201 }),
      'POST /v1/providers/deepseek/default': () => {
        ready = true;
        return Response.json({ default: 'deepseek', model: { ready: true, provider: 'deepseek', model: 'm' } });
      },
    });
    const { user } = renderApp({ client });
    const panel = await screen.findByTestId('first-run');
    expect(panel).toHaveTextContent('No model is set up yet');
    // The presets people have accounts with, in order; a local one is reached through Settings.
    const choices = within(within(panel).getByRole('group', { name: 'Providers' })).getAllByRole('button').map((b) => b.textContent);
    // By the names people know them by.
    expect(choices).toEqual(['OpenAI', 'DeepSeek', 'Another provider, or one on this machine…']);
    await user.click(within(panel).getByRole('button', { name: 'DeepSeek' }));
    const form = within(panel).getByRole('form', { name: 'API key of DeepSeek' });
    await user.type(within(form).getByLabelText('API key'), 'sk-first-run');
    await user.click(within(form).getByRole('button', { name: 'Save and test' }));
    // The key works: pick the model, the preset's default first, then what the provider serves.
    const picking = await within(panel).findByRole('form', { name: 'Model of DeepSeek' });
    expect(picking).toHaveTextContent('The key of DeepSeek works.');
    const select = within(picking).getByLabelText('Model');
    expect(within(select).getAllByRole('option').map((o) => o.textContent)).toEqual(['m', 'deepseek-reasoner']);
    expect(select).toHaveValue('m');
    await user.selectOptions(select, 'deepseek-reasoner');
    await user.click(within(picking).getByRole('button', { name: 'Start chatting' }));
    expect(await screen.findByTestId('first-run-done')).toHaveTextContent('Ready: DeepSeek · deepseek-reasoner answers your messages now.');
    const order = requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`);
    expect(order).toEqual(['PUT /v1/providers/deepseek/key', 'POST /v1/providers/deepseek/check', 'POST /v1/providers', 'POST /v1/providers/deepseek/default']);
    const saved = requests.find((r) => r.method === 'POST' && r.path === '/v1/providers');
    expect(saved?.body).toMatchObject({ name: 'deepseek', default_model: 'deepseek-reasoner' });
    expect(document.body.innerHTML).not.toContain('sk-first-run');
  });

  it('a key the provider refuses is said, and nothing is made the default', async () => {
    const { client, requests } = fakeEngine({
      'GET /v1/conversations': () => Response.json({ conversations: [] }),
      'GET /v1/settings': () => Response.json({ settings: {}, spent_today_usd: 0, model: { ready: false } }),
      'GET /v1/providers': () => Response.json({ providers: [row('openai')], default: null, keyring_error: null, model: { ready: false } }),
      'PUT /v1/providers/openai/key': () => Response.json({ provider: 'openai', stored: true, env_override: null, not_required: false, model: { ready: false } }),
      'POST /v1/providers/openai/check': () => Response.json({ provider: 'openai', ok: false, problem: 'auth_failed', message: 'HTTP 401: invalid key' }),
    });
    const { user } = renderApp({ client });
    const panel = await screen.findByTestId('first-run');
    await user.click(within(panel).getByRole('button', { name: 'OpenAI' }));
    await user.type(within(within(panel).getByRole('form', { name: 'API key of OpenAI' })).getByLabelText('API key'), 'sk-wrong{Enter}');
    expect(await within(panel).findByRole('alert')).toHaveTextContent('HTTP 401: invalid key');
    await waitFor(() => expect(requests.some((r) => r.path.endsWith('/default'))).toBe(false));
  });

  it('says nothing when a model is ready', async () => {
    const { client, requests } = fakeEngine({
      'GET /v1/conversations': () => Response.json({ conversations: [] }),
      'GET /v1/settings': () => Response.json({ settings: {}, spent_today_usd: 0, model: { ready: true } }),
      'GET /v1/providers': () => Response.json({ providers: [row('openai')], default: 'openai', keyring_error: null, model: { ready: true } }),
    });
    renderApp({ client });
    await waitFor(() => expect(screen.queryByText('Connecting to the engine…')).not.toBeInTheDocument());
    expect(screen.queryByTestId('first-run')).not.toBeInTheDocument();
    // Nor reads every provider's key to find that out.
    await waitFor(() => expect(requests.some((r) => r.path === '/v1/settings')).toBe(true));
    expect(requests.some((r) => r.path === '/v1/providers')).toBe(false);
  });

  it('a model server running on this machine is offered first and used without a key', async () => {
    let ready = false;
    const found = { name: 'ollama', kind: 'openai', base_url: 'http://127.0.0.1:11434/v1', requires_key: false, default_model: 'llama3.2', models: { 'llama3.2': {} } };
    const { client, requests } = fakeEngine({
      'GET /v1/conversations': () => Response.json({ conversations: [] }),
      'GET /v1/settings': () => Response.json({ settings: {}, spent_today_usd: 0, model: { ready } }),
      'GET /v1/providers': () => Response.json({ providers: [row('openai')], default: null, keyring_error: null, model: { ready } }),
      'GET /v1/local-providers': () => Response.json({ found: [found] }),
      'POST /v1/providers': () => Response.json({ name: 'ollama', created: true, model: { ready: false } }, { status: 201 }),
      'POST /v1/providers/ollama/default': () => {
        ready = true;
        return Response.json({ default: 'ollama', model: { ready: true, provider: 'ollama', model: 'llama3.2' } });
      },
    });
    const { user } = renderApp({ client });
    const local = await screen.findByTestId('first-run-local');
    await user.click(within(local).getByRole('button', { name: 'Use ollama on this machine (llama3.2)' }));
    expect(await screen.findByTestId('first-run-done')).toHaveTextContent('Ready: ollama');
    expect(requests.find((r) => r.method === 'POST' && r.path === '/v1/providers')?.body).toMatchObject({ name: 'ollama', requires_key: false });
    expect(requests.some((r) => r.path.endsWith('/key'))).toBe(false);
  });

  it('where no keyring can be used, the key file is offered in plain words; Back clears it', async () => {
    let store: 'keyring' | 'file' = 'keyring';
    let ready = false;
    const { client, requests } = fakeEngine({
      'GET /v1/conversations': () => Response.json({ conversations: [] }),
      'GET /v1/settings': () => Response.json({ settings: {}, spent_today_usd: 0, model: { ready } }),
      'GET /v1/providers': () => Response.json({ providers: [row('openai'), row('anthropic')], default: null, keyring_error: null, model: { ready } }),
      'PUT /v1/providers/openai/key': () =>
        store === 'file'
          ? Response.json({ provider: 'openai', stored: true, env_override: null, not_required: false, model: { ready: false } })
          : Response.json(
              { type: 'ERROR_RESPONSE', content: { errorCode: 'KEYRING_UNAVAILABLE', message: 'the keyring could not be used: org.freedesktop.DBus.Error.ServiceUnknown' } },
              { status: 503 },
            ),
      'PUT /v1/secrets/store': () => {
        store = 'file';
        return Response.json({ store, key_file: '/home/me/.local/share/dev.tessera.desktop/secrets.json', moved: [], not_moved: [] });
      },
      'POST /v1/providers/openai/check': () => Response.json({ provider: 'openai', ok: true, model: 'm', latency_ms: 40, models: 1 }),
      'GET /v1/providers/openai/models': () => Response.json({ provider: 'openai', models: [{ id: 'm' }] }),
      'POST /v1/providers/openai/default': () => {
        ready = true;
        return Response.json({ default: 'openai', model: { ready: true, provider: 'openai', model: 'm' } });
      },
    });
    const { user } = renderApp({ client });
    const panel = await screen.findByTestId('first-run');
    const tryKey = async () => {
      await user.click(within(panel).getByRole('button', { name: 'OpenAI' }));
      await user.type(within(within(panel).getByRole('form', { name: 'API key of OpenAI' })).getByLabelText('API key'), 'sk-no-keyring{Enter}');
      return within(panel).findByTestId('first-run-keyring');
    };
    let offer = await tryKey();
    expect(offer).toHaveTextContent('Your system keyring cannot be reached, so the key could not be saved there.');
    expect(offer).toHaveTextContent('less safe');
    expect(panel).not.toHaveTextContent('DBus');
    expect(panel).not.toHaveTextContent('KEYRING_UNAVAILABLE');

    // Back: the choice of providers, with nothing of the failure left.
    await user.click(within(panel).getByRole('button', { name: 'Back' }));
    expect(within(panel).queryByRole('alert')).not.toBeInTheDocument();
    expect(within(panel).getByRole('button', { name: 'Anthropic' })).toBeInTheDocument();

    // Again, and this time the key file: the key is saved there and tested.
    offer = await tryKey();
    await user.click(within(offer).getByRole('button', { name: 'Use a key file and save the key' }));
    const picking = await within(panel).findByRole('form', { name: 'Model of OpenAI' });
    await user.click(within(picking).getByRole('button', { name: 'Start chatting' }));
    expect(await screen.findByTestId('first-run-done')).toHaveTextContent('Ready: OpenAI · m');
    const order = requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`);
    expect(order).toEqual([
      'PUT /v1/providers/openai/key',
      'PUT /v1/providers/openai/key',
      'PUT /v1/secrets/store',
      'PUT /v1/providers/openai/key',
      'POST /v1/providers/openai/check',
      'POST /v1/providers/openai/default',
    ]);
    expect(requests.find((r) => r.path === '/v1/secrets/store' && r.method === 'PUT')?.body).toEqual({ store: 'file' });
  });

  it('"Another provider…" and the note under a message not sent open Settings at Providers', async () => {
    const { client } = fakeEngine({
      'GET /v1/conversations': () => Response.json({ conversations: [] }),
      'GET /v1/settings': () => Response.json({ settings: {}, spent_today_usd: 0, model: { ready: false } }),
      'GET /v1/providers': () => Response.json({ providers: [row('openai')], default: null, keyring_error: null, model: { ready: false } }),
      'POST /v1/messages': (r) => {
        const body = r.body as { type: string };
        if (body.type === 'CLIENT_CAPABILITIES') return Response.json({ type: 'SYSTEM_MESSAGE', content: { action: 'INFO', text: 'announced' } });
        return Response.json({ type: 'ERROR_RESPONSE', content: { errorCode: 'NO_MODEL', message: 'no model' } }, { status: 503 });
      },
    });
    const { user } = renderApp({ client });
    const section = () => screen.findByRole('heading', { level: 2, name: 'Providers' });
    await user.click(within(await screen.findByTestId('first-run')).getByRole('button', { name: 'Another provider, or one on this machine…' }));
    expect(await section()).toHaveFocus();
    await user.click(screen.getByRole('button', { name: '← Back to chat' }));

    // The gear still opens Settings where it always did.
    await user.click(await screen.findByRole('button', { name: 'Open settings' }));
    expect(await screen.findByRole('heading', { level: 2, name: 'General' })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: '← Back to chat' }));

    await user.type(await screen.findByRole('textbox', { name: 'Message' }), 'Hello{Enter}');
    const note = await within(screen.getByRole('log', { name: 'Messages' })).findByText(/No model is set up yet/);
    await user.click(within(note).getByRole('button', { name: 'Settings → Providers' }));
    expect(await section()).toHaveFocus();
  });
});
