import { screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeEngine, type RecordedRequest } from '../test/fakeEngine';
import { renderApp, setBrowserLanguages } from '../test/render';

const error = (status: number, errorCode: string, message: string, details?: unknown) =>
  Response.json({ type: 'ERROR_RESPONSE', content: { errorCode, message, ...(details ? { details } : {}) } }, { status });

const localRow = {
  name: 'local',
  kind: 'openai',
  source: 'saved',
  default: false,
  base_url: 'http://127.0.0.1:9/v1',
  default_model: 'm',
  models: ['m'],
  requires_key: true,
  key: 'missing',
  key_env_var: null,
  key_env_vars: ['TESSERA_LOCAL_API_KEY'],
  has_key: false,
  config: { name: 'local', kind: 'openai', base_url: 'http://127.0.0.1:9/v1', default_model: 'm', requires_key: true, models: { m: {} } },
};

function providers(rows = [localRow]) {
  return () => Response.json({ providers: rows, default: null, keyring_error: null, model: { ready: false, reason: 'no default provider' } });
}

function engine(routes: Record<string, (r: RecordedRequest) => Response | Promise<Response>> = {}) {
  return fakeEngine({
    'GET /v1/conversations': () => Response.json({ conversations: [] }),
    'GET /v1/settings': () =>
      Response.json({ settings: { spending_limit_per_day_usd: null, spending_limit_per_conversation_usd: 2, default_provider: null }, spent_today_usd: 0.125 }),
    'GET /v1/providers': providers(),
    'GET /v1/tools': () => Response.json({ tools: [{ name: 'read_file', description: 'Reads' }, { name: 'web_search', description: 'Searches' }] }),
    'GET /v1/profiles': () => Response.json({ profiles: [{ name: 'general', title: 'General', description: 'Anything', system_prompt: 'Be helpful.', default: true }], custom: false }),
    'GET /v1/specialists': () =>
      Response.json({ specialists: [{ name: 'researcher', title: 'Researcher', description: 'Finds', system_prompt: 'Search.', tools: [], max_turns: 3, role: 'answer' }], custom: false }),
    ...routes,
  });
}

async function openSettings(routes?: Parameters<typeof engine>[0]) {
  const fake = engine(routes);
  const rendered = renderApp({ client: fake.client });
  await rendered.user.click(screen.getByRole('button', { name: 'Open settings' }));
  // The settings page is a chunk of its own: shown once it is loaded.
  await screen.findByRole('navigation', { name: 'Settings sections' });
  return { ...fake, ...rendered };
}

async function openSection(user: Awaited<ReturnType<typeof openSettings>>['user'], name: string) {
  const nav = screen.getByRole('navigation', { name: 'Settings sections' });
  await user.click(within(nav).getByRole('button', { name }));
}

describe('settings navigation', () => {
  beforeEach(() => setBrowserLanguages('en-US', 'en'));

  it('goes from the chat to Settings and back by keyboard, Ctrl+, included', async () => {
    const { user } = renderApp({ client: engine().client });
    screen.getByRole('button', { name: 'Open settings' }).focus();
    await user.keyboard('{Enter}');
    const nav = await screen.findByRole('navigation', { name: 'Settings sections' });
    expect(within(nav).getByRole('button', { name: 'General' })).toHaveAttribute('aria-current', 'page');
    // The keyboard lands on the section shown.
    expect(screen.getByRole('heading', { level: 2, name: 'General' })).toHaveFocus();

    within(nav).getByRole('button', { name: 'Providers' }).focus();
    await user.keyboard('{Enter}');
    expect(screen.getByRole('heading', { level: 2, name: 'Providers' })).toHaveFocus();
    for (const section of ['Agents', 'Permissions']) expect(within(nav).getByRole('button', { name: section })).toBeInTheDocument();

    within(nav).getByRole('button', { name: '← Back to chat' }).focus();
    await user.keyboard('{Enter}');
    expect(screen.getByRole('textbox', { name: 'Message' })).toHaveFocus();

    await user.keyboard('{Control>},{/Control}');
    expect(screen.getByRole('main', { name: 'Settings' })).toBeInTheDocument();
  });

  it('General switches the whole UI to Chinese at once, and shows a limit the server refused next to it', async () => {
    const { user, requests } = await openSettings({
      'PUT /v1/settings/spending_limit_per_day_usd': (r) =>
        (r.body as { value: unknown }).value === '7'
          ? error(400, 'INVALID_VALUE', 'The daily spending limit must be an amount of 0 US dollars or more, like 5 or 2.50, not “7”')
          : Response.json({ settings: { spending_limit_per_day_usd: 5, spending_limit_per_conversation_usd: 2, default_provider: null }, spent_today_usd: 0.125 }),
    });
    expect(await screen.findByTestId('spent-today')).toHaveTextContent('Spent today (estimated): $0.1250');
    const daily = screen.getByRole('textbox', { name: 'Daily limit (USD)' });
    expect(screen.getByRole('textbox', { name: 'Limit per conversation (USD)' })).toHaveValue('2');

    // Not an amount: said at once, by the field's name, in plain words; nothing is sent.
    await user.type(daily, 'five');
    await user.keyboard('{Enter}');
    expect(await screen.findByText('Daily limit (USD): enter an amount in US dollars, like 5 or 2.50 (empty for no limit).')).toBeInTheDocument();
    expect(daily).toHaveAttribute('aria-invalid', 'true');
    expect(screen.queryByText(/spending_limit_per_day_usd/)).not.toBeInTheDocument();

    // What the server refuses is shown at the field too.
    await user.clear(daily);
    await user.type(daily, '7');
    await user.keyboard('{Enter}');
    await waitFor(() => expect(daily).toHaveAccessibleDescription(expect.stringContaining('The daily spending limit must be an amount of 0 US dollars or more')));

    await user.clear(daily);
    await user.type(daily, '5{Enter}');
    expect(await screen.findByText('Saved')).toBeInTheDocument();
    expect(daily).not.toHaveAttribute('aria-invalid');
    expect(requests.filter((r) => r.method === 'PUT').map((r) => r.body)).toEqual([{ value: '7' }, { value: '5' }]);

    await user.selectOptions(screen.getByRole('combobox', { name: 'Language' }), 'zh-CN');
    expect(screen.getByRole('heading', { level: 1, name: '设置' })).toBeInTheDocument();
    expect(screen.getByRole('navigation', { name: '设置分区' })).toBeInTheDocument();
    expect(document.documentElement.lang).toBe('zh-CN');
  });
});

describe('providers', () => {
  beforeEach(() => setBrowserLanguages('en-US', 'en'));

  it('adding one: missing fields and the server’s 400 are shown next to the field they name', async () => {
    const { user, requests } = await openSettings({
      'POST /v1/providers': () => error(400, 'INVALID_PROVIDER', 'base_url `ftp://x` must start with http:// or https://'),
    });
    await openSection(user, 'Providers');
    await user.click(screen.getByRole('button', { name: 'Add a provider' }));
    const form = screen.getByRole('form', { name: 'New provider' });
    await user.click(within(form).getByRole('button', { name: 'Add provider' }));
    expect(within(form).getByRole('textbox', { name: 'Name' })).toHaveAccessibleDescription(expect.stringContaining('Required'));
    expect(requests.some((r) => r.method === 'POST')).toBe(false);

    await user.type(within(form).getByRole('textbox', { name: 'Name' }), 'mine');
    await user.type(within(form).getByRole('textbox', { name: 'Base URL' }), 'ftp://x');
    await user.click(within(form).getByRole('button', { name: 'Add provider' }));
    const url = within(form).getByRole('textbox', { name: 'Base URL' });
    await waitFor(() => expect(url).toHaveAttribute('aria-invalid', 'true'));
    expect(url).toHaveAccessibleDescription(expect.stringContaining('must start with http:// or https://'));
    expect(within(form).getByRole('textbox', { name: 'Name' })).not.toHaveAttribute('aria-invalid');
    expect(requests.find((r) => r.method === 'POST')?.body).toMatchObject({ name: 'mine', kind: 'openai', base_url: 'ftp://x', requires_key: true });
    // Fixing the field takes its error away at once: no stale error beside a corrected value.
    await user.clear(url);
    await user.type(url, 'https://x');
    expect(url).not.toHaveAttribute('aria-invalid');
    expect(url).not.toHaveAccessibleDescription(expect.stringContaining('must start with'));
  });

  it('an unreachable keyring is said once, and the key file can be chosen for every secret', async () => {
    let store: 'keyring' | 'file' = 'keyring';
    const view = () =>
      Response.json({
        store,
        key_file: '/home/me/.local/share/dev.tessera.desktop/secrets.json',
        keyring: { reachable: false, reason: 'the system keyring is not available (no session bus)' },
      });
    const { user, requests } = await openSettings({
      'GET /v1/providers': () =>
        Response.json({ providers: [localRow], default: null, keyring_error: 'no session bus', model: { ready: false, reason: 'no default provider' } }),
      'GET /v1/secrets/store': view,
      'PUT /v1/secrets/store': () => {
        store = 'file';
        return Response.json({ store, key_file: '/home/me/.local/share/dev.tessera.desktop/secrets.json', moved: [], not_moved: [] });
      },
    });
    await openSection(user, 'Providers');
    const notice = await screen.findByTestId('secret-store-notice');
    expect(notice).toHaveTextContent('Your system keyring cannot be reached');
    expect(notice).toHaveTextContent('less safe');
    // Said once: the list's own keyring error is not repeated beside it.
    expect(screen.queryByText(/The keyring cannot be read/)).not.toBeInTheDocument();
    await user.click(within(notice).getByRole('button', { name: 'Use a key file' }));
    await waitFor(() => expect(screen.getByTestId('secret-store-notice')).toHaveTextContent('kept in the key file /home/me/.local/share/dev.tessera.desktop/secrets.json'));
    expect(screen.getByTestId('secret-store-notice')).toHaveTextContent('Less safe than the system keyring');
    // No way back while the keyring cannot be reached.
    expect(within(screen.getByTestId('secret-store-notice')).queryByRole('button')).not.toBeInTheDocument();
    expect(requests.filter((r) => r.method === 'PUT' && r.path === '/v1/secrets/store').map((r) => r.body)).toEqual([{ store: 'file' }]);
  });

  it('warnings about the key file are shown even while the keyring works', async () => {
    const warning = '/x/secrets.json is not Tessera\'s key file (it does not carry Tessera\'s format marker); it is not used';
    const { user } = await openSettings({
      'GET /v1/secrets/store': () =>
        Response.json({ store: 'keyring', key_file: '/x/secrets.json', keyring: { reachable: true }, warnings: [warning] }),
    });
    await openSection(user, 'Providers');
    const notice = await screen.findByTestId('secret-store-notice');
    expect(within(notice).getByTestId('secret-store-warning')).toHaveTextContent(warning);
    expect(notice).not.toHaveTextContent('cannot be reached');
    expect(within(notice).queryByRole('button')).not.toBeInTheDocument();
  });

  it('a working keyring shows no notice at all', async () => {
    const { user } = await openSettings({
      'GET /v1/secrets/store': () => Response.json({ store: 'keyring', key_file: '/x/secrets.json', keyring: { reachable: true } }),
    });
    await openSection(user, 'Providers');
    await screen.findByTestId('provider-list');
    expect(screen.queryByTestId('secret-store-notice')).not.toBeInTheDocument();
  });

  it('the API key is sent once, never shown again, and an unreachable keyring is said plainly', async () => {
    let keyring = false;
    const { user, requests } = await openSettings({
      'PUT /v1/providers/local/key': () =>
        keyring
          ? Response.json({ provider: 'local', stored: true, env_override: null, not_required: false, model: { ready: false } })
          : error(503, 'KEYRING_UNAVAILABLE', 'the keyring could not be used: no session bus'),
    });
    await openSection(user, 'Providers');
    await user.click(await screen.findByRole('button', { name: /local/ }));
    const keyForm = screen.getByRole('form', { name: 'API key of local' });
    const field = within(keyForm).getByLabelText('API key');
    expect(field).toHaveAttribute('type', 'password');

    await user.type(field, 'sk-secret-123{Enter}');
    expect(await within(keyForm).findByText(/The system keyring cannot be reached/)).toHaveTextContent('TESSERA_LOCAL_API_KEY');

    keyring = true;
    await user.click(within(keyForm).getByRole('button', { name: 'Save key' }));
    expect(await within(keyForm).findByText('Key stored.')).toBeInTheDocument();
    expect(field).toHaveValue('');
    expect(document.body.innerHTML).not.toContain('sk-secret-123');
    expect(requests.filter((r) => r.path === '/v1/providers/local/key').map((r) => r.body)).toEqual([{ key: 'sk-secret-123' }, { key: 'sk-secret-123' }]);
  });

  it('a test that found no key goes once a key is stored: no "There is no API key" under "Key stored."', async () => {
    const { user } = await openSettings({
      'POST /v1/providers/local/check': () => Response.json({ provider: 'local', ok: false, model: 'm', latency_ms: 1, models: null, problem: 'missing_key', message: null }),
      'PUT /v1/providers/local/key': () => Response.json({ provider: 'local', stored: true, env_override: null, not_required: false, model: { ready: false } }),
    });
    await openSection(user, 'Providers');
    await user.click(await screen.findByRole('button', { name: /local/ }));
    const detail = screen.getByTestId('provider-detail');
    await user.click(within(detail).getByRole('button', { name: 'Test the connection' }));
    expect(await within(detail).findByTestId('check-result')).toHaveTextContent('There is no API key for this provider yet.');

    const keyForm = screen.getByRole('form', { name: 'API key of local' });
    await user.type(within(keyForm).getByLabelText('API key'), 'sk-new{Enter}');
    expect(await within(keyForm).findByText('Key stored.')).toBeInTheDocument();
    expect(screen.queryByText(/There is no API key/)).not.toBeInTheDocument();
  });

  it('tests the connection, lists the models, and picks the default model', async () => {
    let verdict: object = { provider: 'local', ok: true, model: 'm', latency_ms: 42, models: 2, problem: null, message: null };
    const { user, requests } = await openSettings({
      'POST /v1/providers/local/check': () => Response.json(verdict),
      'GET /v1/providers/local/models': () => Response.json({ provider: 'local', models: [{ id: 'm' }, { id: 'big' }] }),
      'POST /v1/providers': () => Response.json({ name: 'local', replaced: true, model: { ready: false } }),
    });
    await openSection(user, 'Providers');
    await user.click(await screen.findByRole('button', { name: /local/ }));
    const detail = screen.getByTestId('provider-detail');
    await user.click(within(detail).getByRole('button', { name: 'Test the connection' }));
    expect(await within(detail).findByTestId('check-result')).toHaveTextContent('Connected in 42 ms (2 models listed).');

    verdict = { provider: 'local', ok: false, model: 'm', latency_ms: 3, models: null, problem: 'auth_failed', message: 'local answered HTTP 401: Incorrect API key' };
    await user.click(within(detail).getByRole('button', { name: 'Test the connection' }));
    await waitFor(() => expect(within(detail).getByTestId('check-result')).toHaveTextContent('The provider refused the API key.'));
    expect(within(detail).getByTestId('check-result')).toHaveTextContent('HTTP 401');

    await user.click(within(detail).getByRole('button', { name: 'List models' }));
    await user.click(await within(detail).findByRole('button', { name: 'Use big as the default model' }));
    await waitFor(() => expect(requests.some((r) => r.method === 'POST' && r.path === '/v1/providers')).toBe(true));
    expect(requests.find((r) => r.method === 'POST' && r.path === '/v1/providers')?.body).toMatchObject({ name: 'local', default_model: 'big', base_url: 'http://127.0.0.1:9/v1' });
    expect(await screen.findByText('big is now the default model of local.')).toBeInTheDocument();
  });
});

describe('agents', () => {
  beforeEach(() => setBrowserLanguages('en-US', 'en'));

  it('a profile the server refuses shows each problem next to its field; tools come from /v1/tools', async () => {
    const { user, requests } = await openSettings({
      'PUT /v1/profiles': () =>
        error(400, 'INVALID_PROFILES', 'profile `general`, response_format.schema: not a JSON schema', {
          problems: [{ profile: 'general', field: 'response_format.schema', message: 'not a JSON schema' }],
        }),
    });
    await openSection(user, 'Agents');
    await user.click(await screen.findByRole('button', { name: 'Edit General' }));
    const form = screen.getByRole('form', { name: 'Edit general' });
    expect(within(form).getByRole('textbox', { name: 'System prompt' })).toHaveValue('Be helpful.');
    await user.click(within(form).getByRole('checkbox', { name: 'All tools' }));
    await user.click(within(form).getByRole('checkbox', { name: 'web_search' }));
    await user.selectOptions(within(form).getByRole('combobox', { name: 'Response format' }), 'json');
    const schema = within(form).getByRole('textbox', { name: 'JSON schema' });
    await user.clear(schema);
    await user.type(schema, '{{"type": "nothing"}');
    await user.click(within(form).getByRole('button', { name: 'Save' }));

    await waitFor(() => expect(schema).toHaveAttribute('aria-invalid', 'true'));
    expect(schema).toHaveAccessibleDescription('not a JSON schema');
    expect(requests.find((r) => r.method === 'PUT')?.body).toEqual([
      { name: 'general', title: 'General', description: 'Anything', system_prompt: 'Be helpful.', default: true, tools: ['web_search'], response_format: { type: 'json', schema: { type: 'nothing' } } },
    ]);
  });

  it('adds a specialist with a turn limit, and a bad one is named at its field', async () => {
    const saved: unknown[] = [];
    const { user } = await openSettings({
      'PUT /v1/specialists': (r) => {
        saved.push(r.body);
        const list = r.body as { name: string; max_turns: number }[];
        if (list.some((s) => s.max_turns > 20)) {
          return error(400, 'INVALID_SPECIALISTS', 'specialist 1 (translator): max_turns: between 1 and 20', {
            problems: [{ specialist: 'translator', index: 1, field: 'max_turns', message: 'between 1 and 20' }],
          });
        }
        return Response.json({ specialists: list, custom: true });
      },
    });
    await openSection(user, 'Agents');
    await user.click(await screen.findByRole('button', { name: 'Add a specialist' }));
    const form = screen.getByRole('form', { name: 'New specialist' });
    await user.type(within(form).getByRole('textbox', { name: 'Name' }), 'translator');
    await user.type(within(form).getByRole('textbox', { name: 'Title' }), 'Translator');
    await user.type(within(form).getByRole('textbox', { name: 'Description' }), 'Translates');
    const turns = within(form).getByRole('textbox', { name: 'Turn limit' });
    await user.clear(turns);
    await user.type(turns, '50');
    await user.click(within(form).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(turns).toHaveAccessibleDescription('between 1 and 20'));

    await user.clear(turns);
    await user.type(turns, '2');
    await user.click(within(form).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('translator saved.')).toBeInTheDocument();
    expect(saved.at(-1)).toEqual([
      { name: 'researcher', title: 'Researcher', description: 'Finds', system_prompt: 'Search.', tools: [], max_turns: 3, role: 'answer' },
      { name: 'translator', title: 'Translator', description: 'Translates', system_prompt: '', tools: [], max_turns: 2, role: 'answer' },
    ]);
    expect(screen.getByRole('button', { name: 'Restore the built-ins' })).toBeInTheDocument();
  });
});

describe('agents that cannot be deleted', () => {
  beforeEach(() => setBrowserLanguages('en-US', 'en'));

  it('the only profile and a built-in specialist offer no Delete, and say why; others can be deleted', async () => {
    const specialist = (name: string) => ({ name, title: name, description: 'd', system_prompt: 's', tools: [], max_turns: 3, role: 'answer' });
    const { user, requests } = await openSettings({
      'GET /v1/specialists': () => Response.json({ specialists: [specialist('researcher'), specialist('translator')], custom: true, builtin: ['researcher', 'planner'] }),
      'PUT /v1/specialists': () => Response.json({ specialists: [specialist('researcher')], custom: true, builtin: ['researcher', 'planner'] }),
    });
    await openSection(user, 'Agents');
    const profileDelete = await screen.findByRole('button', { name: 'Delete General' });
    expect(profileDelete).toBeDisabled();
    expect(profileDelete).toHaveAccessibleDescription('The only profile: add another before deleting it.');

    const builtinDelete = await screen.findByRole('button', { name: 'Delete researcher' });
    expect(builtinDelete).toBeDisabled();
    expect(builtinDelete).toHaveAccessibleDescription('Built in: it can be changed, not deleted.');
    expect(screen.getByRole('button', { name: 'Edit researcher' })).toBeEnabled();

    const ownDelete = screen.getByRole('button', { name: 'Delete translator' });
    expect(ownDelete).toBeEnabled();
    expect(ownDelete).not.toHaveAccessibleDescription();
    vi.spyOn(window, 'confirm').mockReturnValue(true);
    await user.click(ownDelete);
    expect(await screen.findByText('translator deleted.')).toBeInTheDocument();
    expect(requests.filter((r) => r.method === 'PUT').map((r) => r.body)).toEqual([[specialist('researcher')]]);
  });
});

// `window.confirm` is not implemented in jsdom; removal paths are covered end to end.
vi.spyOn(window, 'confirm').mockReturnValue(true);
