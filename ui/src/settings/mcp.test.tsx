import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { I18nextProvider } from 'react-i18next';
import { beforeEach, describe, expect, it } from 'vitest';
import type { McpServerView } from '../generated/McpServerView';
import { createI18n } from '../i18n';
import { fakeEngine, type RecordedRequest } from '../test/fakeEngine';
import { renderApp, setBrowserLanguages } from '../test/render';
import { SettingsPage } from './SettingsPage';

const error = (status: number, errorCode: string, message: string) => Response.json({ type: 'ERROR_RESPONSE', content: { errorCode, message } }, { status });

const everything: McpServerView = {
  name: 'everything',
  config: { command: 'node', args: ['/srv/everything/dist/index.js', 'stdio'] },
  uri: 'stdio:node /srv/everything/dist/index.js stdio',
  disabled: false,
  always_ask: false,
  status: { state: 'ready', server: 'mcp-servers/everything 2.0.0' },
  tools: [
    { name: 'everything__echo', server_name: 'echo', title: 'Echo Tool', safety: 'read_only' },
    { name: 'everything__trigger-elicitation-request', server_name: 'trigger-elicitation-request', safety: 'side_effecting' },
    { name: 'everything__wipe', server_name: 'wipe', description: 'Deletes everything', safety: 'destructive' },
    { name: 'everything__mystery', server_name: 'mystery', safety: 'unannotated' },
  ],
  secrets: [],
};

const github: McpServerView = {
  name: 'github',
  config: { command: 'github-mcp', args: ['stdio'], env: { GITHUB_TOKEN: '${keyring}', LOG_LEVEL: 'debug' }, timeout: 30 },
  uri: 'stdio:github-mcp stdio',
  disabled: false,
  always_ask: false,
  status: { state: 'failed', reason: 'the process exited (code 3) before it answered', attempts: 2, retry_in_ms: 4500 },
  tools: [],
  secrets: ['GITHUB_TOKEN'],
};

const remote: McpServerView = {
  name: 'remote',
  config: { type: 'http', url: 'https://mcp.example.com/mcp', disabled: true },
  uri: 'https://mcp.example.com/mcp',
  disabled: true,
  always_ask: false,
  status: { state: 'disabled' },
  tools: [],
  secrets: [],
};

type Routes = Record<string, (r: RecordedRequest) => Response | Promise<Response>>;

async function openMcp(routes: Routes = {}, servers: McpServerView[] = [everything, github, remote]) {
  const fake = fakeEngine({
    'GET /v1/conversations': () => Response.json({ conversations: [] }),
    'GET /v1/mcp/servers': () => Response.json({ servers }),
    ...routes,
  });
  const rendered = renderApp({ client: fake.client });
  await rendered.user.click(screen.getByRole('button', { name: 'Open settings' }));
  await rendered.user.click(within(await screen.findByRole('navigation', { name: 'Settings sections' })).getByRole('button', { name: 'MCP servers' }));
  await screen.findByRole('list', { name: 'Configured MCP servers' });
  return { ...fake, ...rendered };
}

const item = (name: string) => screen.getByRole('listitem', { name });

describe('MCP servers settings', () => {
  beforeEach(() => setBrowserLanguages('en-US', 'en'));

  it('shows each server’s state, why one failed, its tools with their safety, and secrets only by name', async () => {
    const { user } = await openMcp();
    expect(screen.getByRole('heading', { level: 2, name: 'MCP servers' })).toHaveFocus();

    const ready = item('everything');
    expect(within(ready).getByTestId('mcp-state')).toHaveTextContent('Ready');
    expect(within(ready).getByText('4 tools')).toBeInTheDocument();
    const toolsButton = within(ready).getByRole('button', { name: 'Tools of everything' });
    expect(toolsButton).toHaveAttribute('aria-expanded', 'false');
    await user.click(toolsButton);
    const tools = within(ready).getByRole('list', { name: 'Tools of everything' });
    const rows = within(tools).getAllByRole('listitem').map((row) => row.textContent);
    // What the server claims, as its claim, and what Tessera does: only a read runs without asking.
    expect(rows).toEqual([
      'everything__echoEcho ToolThe server says it only reads: runs without asking',
      'everything__trigger-elicitation-requestThe server says it changes things but deletes nothing: asks first',
      'everything__wipeDeletes everythingThe server says it may delete data: asks first',
      'everything__mysteryThe server says nothing of what it does: asks first',
    ]);

    const failed = item('github');
    expect(within(failed).getByTestId('mcp-state')).toHaveTextContent('Failed');
    expect(within(failed).getByTestId('mcp-failure')).toHaveTextContent('Why: the process exited (code 3) before it answered');
    expect(within(failed).getByTestId('mcp-failure')).toHaveTextContent('Next try in 5 s (attempt 2).');
    expect(within(within(failed).getByRole('list', { name: 'Secrets of github' })).getByRole('listitem')).toHaveTextContent('GITHUB_TOKEN ••• kept with your secrets');
    expect(document.body.textContent).not.toContain('${keyring}');

    const off = item('remote');
    expect(within(off).getByTestId('mcp-state')).toHaveTextContent('Turned off');
    expect(within(off).getByRole('button', { name: 'Restart remote' })).toBeDisabled();
    expect(within(off).getByRole('button', { name: 'Turn on remote' })).toBeInTheDocument();
  });

  it('Connect all starts every server, says so while it waits, and shows how many are ready', async () => {
    let answer: (r: Response) => void = () => {};
    const { user, requests } = await openMcp({
      'GET /v1/mcp/servers?connect=1': () => new Promise<Response>((resolve) => (answer = resolve)),
    });
    await user.click(screen.getByRole('button', { name: 'Connect all' }));
    expect(screen.getByTestId('mcp-note')).toHaveTextContent('Starting every server');
    expect(screen.getByRole('button', { name: 'Connect all' })).toBeDisabled();
    expect(within(item('github')).getByTestId('mcp-state')).toHaveTextContent('Starting…');
    expect(within(item('remote')).getByTestId('mcp-state')).toHaveTextContent('Turned off');

    answer(Response.json({ servers: [everything, { ...github, status: { state: 'ready', server: 'github 1.0' }, tools: [everything.tools[0]!] }, remote] }));
    await waitFor(() => expect(screen.getByTestId('mcp-note')).toHaveTextContent('2 of 2 servers ready.'));
    expect(screen.getByTestId('mcp-note')).toHaveClass('settings-saved');
    expect(within(item('github')).getByTestId('mcp-state')).toHaveTextContent('Ready');
    expect(requests.filter((r) => r.path === '/v1/mcp/servers?connect=1')).toHaveLength(1);
  });

  it('Connect all does not say it in green when a server did not start', async () => {
    const { user } = await openMcp({ 'GET /v1/mcp/servers?connect=1': () => Response.json({ servers: [{ ...github, status: { ...github.status } }] }) }, [github]);
    await user.click(screen.getByRole('button', { name: 'Connect all' }));
    const note = screen.getByTestId('mcp-note');
    await waitFor(() => expect(note).toHaveTextContent('Only 0 of 1 servers ready: see why under each one that is not.'));
    expect(note).not.toHaveClass('settings-saved');
    expect(note).toHaveClass('mcp-note-warning');
  });

  it('adds a program server by form: arguments and environment lines become its entry; a refused field is named', async () => {
    const { user, requests } = await openMcp({
      'PUT /v1/mcp/servers/files': (r) => {
        const entry = r.body as { args: string[] };
        if (entry.args.length < 3) return error(422, 'INVALID_MCP_CONFIG', 'mcpServers.files.args: must list the folder to serve');
        return Response.json({ ...everything, name: 'files', config: entry, status: { state: 'idle' }, tools: [], secrets: ['API_TOKEN'] });
      },
    });
    await user.click(screen.getByRole('button', { name: 'Add a server' }));
    const form = screen.getByRole('form', { name: 'New MCP server' });
    await user.type(within(form).getByRole('textbox', { name: 'Name' }), 'files');
    await user.type(within(form).getByRole('textbox', { name: 'Command' }), 'node');
    await user.type(within(form).getByRole('textbox', { name: 'Arguments' }), 'server.js{Enter}stdio');
    const env = within(form).getByRole('textbox', { name: 'Environment' });
    await user.type(env, 'just a line');
    await user.click(within(form).getByRole('button', { name: 'Add server' }));
    expect(env).toHaveAccessibleDescription(expect.stringContaining('Line 1 is not KEY=VALUE.'));
    expect(requests.some((r) => r.method === 'PUT')).toBe(false);

    await user.clear(env);
    await user.type(env, 'API_TOKEN=abc123{Enter}{Enter}MODE = fast');
    await user.click(within(form).getByRole('button', { name: 'Add server' }));
    const args = within(form).getByRole('textbox', { name: 'Arguments' });
    await waitFor(() => expect(args).toHaveAttribute('aria-invalid', 'true'));
    expect(args).toHaveAccessibleDescription(expect.stringContaining('must list the folder to serve'));
    expect(requests.find((r) => r.method === 'PUT')?.body).toEqual({ command: 'node', args: ['server.js', 'stdio'], env: { API_TOKEN: 'abc123', MODE: 'fast' } });

    await user.type(args, '{Enter}/tmp/notes');
    await user.click(within(form).getByRole('button', { name: 'Add server' }));
    expect(await screen.findByText('files saved.')).toBeInTheDocument();
    expect(within(item('files')).getByText('••• kept with your secrets')).toBeInTheDocument();
    expect(screen.queryByRole('form', { name: 'New MCP server' })).not.toBeInTheDocument();
  });

  it('editing keeps a secret in the keyring without showing it, and keeps the fields the form has not', async () => {
    const { user, requests } = await openMcp({
      'PUT /v1/mcp/servers/github': (r) => Response.json({ ...github, config: r.body as Record<string, unknown> }),
    });
    await user.click(within(item('github')).getByRole('button', { name: 'Edit github' }));
    const form = screen.getByRole('form', { name: 'Edit github' });
    expect(within(form).getByRole('textbox', { name: 'Name' })).toHaveAttribute('readonly');
    const env = within(form).getByRole('textbox', { name: 'Environment' });
    expect(env).toHaveValue('LOG_LEVEL=debug');
    expect(within(within(form).getByRole('list', { name: 'Kept with your secrets' })).getByRole('listitem')).toHaveTextContent('GITHUB_TOKEN ••• kept with your secrets');

    await user.clear(env);
    await user.type(env, 'LOG_LEVEL=info');
    await user.click(within(form).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('github saved.')).toBeInTheDocument();
    expect(requests.at(-1)?.body).toEqual({ command: 'github-mcp', args: ['stdio'], env: { LOG_LEVEL: 'info', GITHUB_TOKEN: '${keyring}' }, timeout: 30 });
  });

  it('takes a pasted mcpServers document; what is not JSON or is refused is said at the field', async () => {
    const document = { mcpServers: { memory: { command: 'node', args: ['memory.js'] } } };
    const { user, requests } = await openMcp({
      'POST /v1/mcp/import': (r) =>
        JSON.stringify(r.body).includes('"sse"')
          ? error(422, 'INVALID_MCP_CONFIG', 'mcpServers.old.type: the old SSE transport is not supported; use the server’s streamable HTTP URL')
          : Response.json({ added: ['memory'], servers: [everything, { ...everything, name: 'memory', status: { state: 'idle' }, tools: [] }] }),
    });
    await user.click(screen.getByRole('button', { name: 'Paste a configuration' }));
    const form = screen.getByRole('form', { name: 'Paste an mcpServers configuration' });
    const text = within(form).getByRole('textbox', { name: 'Configuration (JSON)' });
    await user.click(text);
    await user.paste('{"mcpServers": {');
    await user.click(within(form).getByRole('button', { name: 'Import' }));
    expect(text).toHaveAccessibleDescription(expect.stringContaining('This is not JSON'));
    expect(requests.some((r) => r.method === 'POST')).toBe(false);

    await user.clear(text);
    await user.paste('{"mcpServers": {"old": {"type": "sse", "url": "https://x"}}}');
    await user.click(within(form).getByRole('button', { name: 'Import' }));
    await waitFor(() => expect(text).toHaveAccessibleDescription(expect.stringContaining('the old SSE transport is not supported')));

    await user.clear(text);
    await user.paste(JSON.stringify(document));
    await user.click(within(form).getByRole('button', { name: 'Import' }));
    expect(await screen.findByText('Added: memory.')).toBeInTheDocument();
    expect(requests.at(-1)?.body).toEqual(document);
    expect(within(item('memory')).getByTestId('mcp-state')).toHaveTextContent('Not started');
    expect(screen.queryByRole('listitem', { name: 'github' })).not.toBeInTheDocument();
  });

  it('asks before a pasted document replaces a server of the same name, and replaces it only when confirmed', async () => {
    const document = { mcpServers: { everything: { command: 'evil', args: [] } } };
    const { user, requests } = await openMcp({
      'POST /v1/mcp/import': () =>
        Response.json(
          { type: 'ERROR_RESPONSE', content: { errorCode: 'MCP_SERVERS_EXIST', message: 'the document would replace `everything`', details: { servers: ['everything'] } } },
          { status: 409 },
        ),
      'POST /v1/mcp/import?replace=1': () => Response.json({ added: ['everything'], servers: [{ ...everything, config: { command: 'evil', args: [] }, uri: 'stdio:evil' }] }),
    });
    await user.click(screen.getByRole('button', { name: 'Paste a configuration' }));
    const form = screen.getByRole('form', { name: 'Paste an mcpServers configuration' });
    const text = within(form).getByRole('textbox', { name: 'Configuration (JSON)' });
    await user.click(text);
    await user.paste(JSON.stringify(document));
    await user.click(within(form).getByRole('button', { name: 'Import' }));
    const warning = await screen.findByTestId('mcp-import-replace');
    expect(warning).toHaveTextContent('This replaces the server everything you already have');
    expect(warning).toHaveTextContent('permissions you gave its tools are revoked');
    // Keeping it sends nothing more.
    await user.click(within(warning).getByRole('button', { name: 'Keep it' }));
    expect(requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    await user.click(within(form).getByRole('button', { name: 'Import' }));
    await user.click(within(await screen.findByTestId('mcp-import-replace')).getByRole('button', { name: 'Replace' }));
    expect(await screen.findByText('Added: everything.')).toBeInTheDocument();
    expect(requests.at(-1)?.path).toBe('/v1/mcp/import?replace=1');
  });

  it('turns a server off, shows its log, and removes it only once confirmed (Escape keeps it)', async () => {
    const { user, requests } = await openMcp({
      'PUT /v1/mcp/servers/everything': (r) => Response.json({ ...everything, config: r.body as Record<string, unknown>, disabled: true, status: { state: 'disabled' }, tools: [] }),
      'GET /v1/mcp/servers/github/log': () => Response.json({ lines: ['started: github-mcp stdio', 'crash: cannot find the configuration it needs', 'failed: the process exited (code 3)'] }),
      'DELETE /v1/mcp/servers/github': () => new Response(null, { status: 204 }),
    });
    await user.click(within(item('everything')).getByRole('button', { name: 'Turn off everything' }));
    expect(await screen.findByText('everything turned off.')).toBeInTheDocument();
    expect(within(item('everything')).getByTestId('mcp-state')).toHaveTextContent('Turned off');
    expect(requests.find((r) => r.method === 'PUT')?.body).toEqual({ ...everything.config, disabled: true });

    await user.click(within(item('github')).getByRole('button', { name: 'Log of github' }));
    const log = await within(item('github')).findByRole('log', { name: 'Log of github' });
    expect(log).toHaveTextContent('crash: cannot find the configuration it needs');
    expect(requests.some((r) => r.path === '/v1/mcp/servers/github/log?lines=200')).toBe(true);

    const remove = within(item('github')).getByRole('button', { name: 'Remove github' });
    await user.click(remove);
    const question = screen.getByRole('group', { name: 'Remove github and the secrets kept for it?' });
    expect(within(question).getByRole('button', { name: 'Yes, remove' })).toHaveFocus();
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('group', { name: /Remove github/ })).not.toBeInTheDocument();
    expect(requests.some((r) => r.method === 'DELETE')).toBe(false);

    await user.click(within(item('github')).getByRole('button', { name: 'Remove github' }));
    await user.click(screen.getByRole('button', { name: 'Yes, remove' }));
    expect(await screen.findByText('github removed.')).toBeInTheDocument();
    expect(screen.queryByRole('listitem', { name: 'github' })).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Add a server' })).toHaveFocus();
  });
});

describe('MCP resources and prompts', () => {
  function renderSettings(routes: Routes, conversation: { id: string; title: string } | null) {
    const fake = fakeEngine({ 'GET /v1/mcp/servers': () => Response.json({ servers: [everything] }), ...routes });
    const user = userEvent.setup();
    render(
      <I18nextProvider i18n={createI18n('en')}>
        <SettingsPage client={fake.client} theme="system" onThemeChange={() => {}} onClose={() => {}} initialSection="mcp" conversation={conversation} />
      </I18nextProvider>,
    );
    return { ...fake, user };
  }

  const resourceRoutes: Routes = {
    'GET /v1/mcp/servers/everything/resources': () =>
      Response.json({ resources: [{ uri: 'demo://resource/static/document/architecture.md', name: 'architecture.md', description: 'How it is built', mimeType: 'text/markdown' }] }),
    'GET /v1/mcp/servers/everything/prompts': () => Response.json({ prompts: [{ name: 'args-prompt', description: 'A prompt with arguments', arguments: [{ name: 'city', required: true }, { name: 'state' }] }] }),
  };

  it('lists them, and attaches a resource to the conversation open in the chat', async () => {
    const { user, requests } = renderSettings(
      { ...resourceRoutes, 'POST /v1/conversations/c1/mcp-resources': () => Response.json({ evidence_id: 'ev_mcp_1' }, { status: 201 }) },
      { id: 'c1', title: 'Trip plans' },
    );
    await user.click(await screen.findByRole('button', { name: 'Resources and prompts of everything' }));
    const resources = await screen.findByRole('list', { name: 'Resources' });
    expect(resources).toHaveTextContent('demo://resource/static/document/architecture.md');
    expect(screen.getByRole('list', { name: 'Prompts' })).toHaveTextContent('args-promptA prompt with argumentsArguments: city, state');

    await user.click(within(resources).getByRole('button', { name: 'Attach architecture.md to the conversation “Trip plans”' }));
    expect(await screen.findByText('architecture.md attached to “Trip plans”.')).toBeInTheDocument();
    expect(requests.at(-1)?.body).toEqual({ server: 'everything', uri: 'demo://resource/static/document/architecture.md' });
  });

  it('without an open conversation there is nothing to attach to, and it says so', async () => {
    const { user } = renderSettings(resourceRoutes, null);
    await user.click(await screen.findByRole('button', { name: 'Resources and prompts of everything' }));
    const resources = await screen.findByRole('list', { name: 'Resources' });
    expect(within(resources).queryByRole('button')).not.toBeInTheDocument();
    expect(screen.getByText('Open a conversation first to attach a resource to it.')).toBeInTheDocument();
  });
});
