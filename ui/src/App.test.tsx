import { act, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import textStream from './chat/fixtures/text.sse?raw';
import { fakeEngine, sseFrom } from './test/fakeEngine';
import { renderApp, setBrowserLanguages } from './test/render';
import { FONT_WARMUP_STAGES } from './components/FontWarmup';

describe('chat layout', () => {
  beforeEach(() => setBrowserLanguages('en-US', 'en'));

  it('shows the sidebar, chat area and composer with their landmarks and accessible names', () => {
    renderApp();

    const nav = screen.getByRole('navigation', { name: 'Conversations' });
    expect(nav).toHaveAttribute('data-testid', 'sidebar');
    expect(within(nav).getByRole('button', { name: 'New conversation' })).toBeEnabled();
    expect(within(nav).getByRole('searchbox', { name: 'Search conversations' })).toBeInTheDocument();
    expect(within(nav).getByText('No conversations yet')).toBeVisible();

    const main = screen.getByRole('main', { name: 'New conversation' });
    expect(main).toHaveAttribute('data-testid', 'chat');
    expect(within(main).getByRole('heading', { level: 1, name: 'New conversation' })).toBeInTheDocument();

    const log = screen.getByRole('log', { name: 'Messages' });
    expect(log).toHaveAttribute('aria-live', 'polite');
    expect(log).toHaveAttribute('data-testid', 'message-list');
    expect(within(log).getByRole('heading', { name: 'Welcome to Tessera' })).toBeInTheDocument();

    const input = screen.getByRole('textbox', { name: 'Message' });
    expect(input.tagName).toBe('TEXTAREA');
    expect(input).toHaveAttribute('data-testid', 'composer-input');
    expect(screen.getByRole('button', { name: 'Send' })).toHaveAttribute('data-testid', 'send-button');

    const settings = screen.getByRole('group', { name: 'Settings' });
    expect(within(settings).getByRole('combobox', { name: 'Language' })).toHaveAttribute('data-testid', 'language-select');
    expect(within(settings).getByRole('combobox', { name: 'Theme' })).toBeInTheDocument();

    for (const id of ['app-shell', 'composer']) expect(screen.getByTestId(id)).toBeInTheDocument();
  });

  it('says honestly that no engine is connected, and keeps Send disabled', async () => {
    const { user } = renderApp();
    const status = screen.getByRole('status');
    expect(status).toHaveTextContent('Not connected to an engine yet');

    const input = screen.getByRole('textbox', { name: 'Message' });
    const send = screen.getByRole('button', { name: 'Send' });
    expect(send).toBeDisabled();
    expect(input).toHaveAccessibleDescription('Not connected to an engine yet');

    await user.type(input, 'Hello there');
    expect(send).toBeDisabled();

    // Enter does not send anything (no reply is faked) and keeps the draft.
    await user.keyboard('{Enter}');
    expect(input).toHaveValue('Hello there');
    const log = screen.getByRole('log', { name: 'Messages' });
    expect(within(log).queryByText('Hello there')).not.toBeInTheDocument();
    expect(within(log).getByText('Welcome to Tessera')).toBeInTheDocument();
  });

  it('sends with Enter (a USER_INPUT for a new conversation), streams the answer, Shift+Enter is a new line', async () => {
    const { client, requests } = fakeEngine({
      'GET /v1/conversations': () => Response.json({ conversations: [] }),
      'POST /v1/messages': (r) => {
        const body = r.body as { type: string; contextId: string };
        if (body.type === 'CLIENT_CAPABILITIES') return Response.json({ type: 'SYSTEM_MESSAGE', content: { action: 'INFO', text: 'announced' } });
        return sseFrom(textStream, body.contextId, { 'x-tessera-run-id': 'run-1' });
      },
    });
    const { user } = renderApp({ client });
    const input = screen.getByRole('textbox', { name: 'Message' });
    const send = screen.getByRole('button', { name: 'Send' });
    expect(send).toBeDisabled(); // nothing typed yet
    await waitFor(() => expect(screen.queryByText('Connecting to the engine…')).not.toBeInTheDocument());
    expect(screen.queryByText('Not connected to an engine yet')).not.toBeInTheDocument();

    await user.type(input, 'first line{Shift>}{Enter}{/Shift}second line');
    expect(input).toHaveValue('first line\nsecond line');
    expect(requests.filter((r) => r.method === 'POST')).toHaveLength(0);
    expect(send).toBeEnabled();

    await user.keyboard('{Enter}');
    expect(input).toHaveValue('');
    const log = screen.getByRole('log', { name: 'Messages' });
    expect(await within(log).findByText('world')).toBeInTheDocument(); // **world** as Markdown
    expect(within(log).getByText('world').tagName).toBe('STRONG');
    expect(within(log).getByTestId('user-message')).toHaveTextContent('first line second line');
    const messages = requests.filter((r) => r.method === 'POST' && r.path === '/v1/messages').map((r) => r.body as { type: string; contextId: string });
    // The window's front-end tools are announced for the new conversation before its first message.
    expect(messages.map((m) => m.type)).toEqual(['CLIENT_CAPABILITIES', 'USER_INPUT']);
    expect(messages[0]?.contextId).toBe(messages[1]?.contextId);
    const posted = requests.find((r) => r.method === 'POST' && (r.body as { type: string }).type === 'USER_INPUT');
    expect(posted?.body).toMatchObject({ type: 'USER_INPUT', content: { text: 'first line\nsecond line' } });
    expect((posted?.body as { contextId: string }).contextId).toMatch(/^[0-9a-f-]{36}$/);
    expect(posted?.headers['Authorization']).toBe('Bearer test-token');
    expect(within(log).getByTestId('usage')).toHaveTextContent('12 in / 3 out tokens');
  });

  it('a first conversation whose answer could not start is in the sidebar all the same', async () => {
    let stored = false;
    const { client } = fakeEngine({
      'GET /v1/conversations': () =>
        Response.json({
          conversations: stored
            ? [{ id: 'c1', title: 'Hello there', pinned: false, archived: false, created_at: '2026-11-26T10:00:00Z', updated_at: '2026-11-26T10:00:00Z' }]
            : [],
        }),
      'POST /v1/messages': (r) => {
        const body = r.body as { type: string };
        if (body.type === 'CLIENT_CAPABILITIES') return Response.json({ type: 'SYSTEM_MESSAGE', content: { action: 'INFO', text: 'announced' } });
        // The message is stored; the run cannot start (no model yet).
        stored = true;
        return Response.json(
          { type: 'ERROR_RESPONSE', content: { errorCode: 'NO_MODEL', message: 'no model is set up: add a provider (and its key) in the settings, or start with --provider/--model' } },
          { status: 503 },
        );
      },
    });
    const { user } = renderApp({ client });
    await waitFor(() => expect(screen.queryByText('Connecting to the engine…')).not.toBeInTheDocument());
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'Hello there{Enter}');
    const sidebar = screen.getByTestId('sidebar');
    expect(await within(sidebar).findByText('Hello there')).toBeInTheDocument();
    // Said in the app's words, naming no command-line flag.
    const failed = await screen.findByText(/No model is set up yet/);
    expect(failed).toHaveTextContent('Add a provider in Settings → Providers');
    expect(screen.getByRole('log', { name: 'Messages' })).not.toHaveTextContent('--provider');
  });

  it('NO_MODEL opens the setup under the message, and Send again sends it once a model is there', async () => {
    let ready = false;
    const sent: string[] = [];
    const { client } = fakeEngine({
      'GET /v1/conversations': () => Response.json({ conversations: [] }),
      'GET /v1/settings': () => Response.json({ settings: {}, spent_today_usd: 0, model: { ready } }),
      'GET /v1/providers': () => Response.json({ providers: [], default: null, keyring_error: null, model: { ready } }),
      'GET /v1/local-providers': () => Response.json({ found: [{ name: 'ollama', kind: 'openai', base_url: 'http://127.0.0.1:11434/v1', requires_key: false, default_model: 'llama3.2', models: {} }] }),
      'POST /v1/providers': () => Response.json({ replaced: false, config: {}, model: { ready: false } }, { status: 201 }),
      'POST /v1/providers/ollama/default': () => {
        ready = true;
        return Response.json({ default: 'ollama', model: { ready: true, provider: 'ollama', model: 'llama3.2' } });
      },
      'POST /v1/messages': (r) => {
        const body = r.body as { type: string; contextId: string; content: { text: string } };
        if (body.type === 'CLIENT_CAPABILITIES') return Response.json({ type: 'SYSTEM_MESSAGE', content: { action: 'INFO', text: 'announced' } });
        sent.push(body.content.text);
        if (!ready) return Response.json({ type: 'ERROR_RESPONSE', content: { errorCode: 'NO_MODEL', message: 'no model' } }, { status: 503 });
        return sseFrom(textStream, body.contextId, { 'x-tessera-run-id': 'run-1' });
      },
    });
    const { user } = renderApp({ client });
    await waitFor(() => expect(screen.queryByText('Connecting to the engine…')).not.toBeInTheDocument());
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'Hello there{Enter}');
    const log = screen.getByRole('log', { name: 'Messages' });
    const setup = await within(log).findByTestId('first-run');
    await user.click(await within(setup).findByRole('button', { name: 'Use ollama on this machine (llama3.2)' }));
    await within(log).findByTestId('first-run-done');
    await user.click(within(log).getByRole('button', { name: 'Send again' }));
    expect(await within(log).findByText('world')).toBeInTheDocument();
    expect(sent).toEqual(['Hello there', 'Hello there']);
    expect(within(log).getAllByTestId('user-message')).toHaveLength(1);
  });

  it('has the desktop shortcuts: Ctrl+K search, ? the list of shortcuts, Ctrl+N a new conversation', async () => {
    const { client } = fakeEngine({ 'GET /v1/conversations': () => Response.json({ conversations: [] }) });
    const { user } = renderApp({ client });
    await waitFor(() => expect(screen.queryByText('Connecting to the engine…')).not.toBeInTheDocument());
    await user.keyboard('{Control>}k{/Control}');
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('searchbox', { name: 'Search conversations' })));
    // In a text field, ? is a character; elsewhere it shows the shortcuts.
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'why?');
    expect(screen.queryByRole('dialog', { name: 'Keyboard shortcuts' })).not.toBeInTheDocument();
    (document.activeElement as HTMLElement).blur();
    await user.keyboard('?');
    const sheet = await screen.findByRole('dialog', { name: 'Keyboard shortcuts' });
    expect(sheet).toHaveTextContent('Ctrl+Shift+CCopy the last answer');
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog', { name: 'Keyboard shortcuts' })).not.toBeInTheDocument();
    await user.keyboard('{Control>}n{/Control}');
    expect(screen.getByRole('textbox', { name: 'Message' })).toHaveValue('');
    expect(document.activeElement).toBe(screen.getByRole('textbox', { name: 'Message' }));
  });

  it('"New conversation" clears the draft and puts the cursor in the composer', async () => {
    const { user } = renderApp();
    const input = screen.getByRole('textbox', { name: 'Message' });
    await user.type(input, 'draft');
    await user.click(screen.getByRole('button', { name: 'New conversation' }));
    expect(input).toHaveValue('');
    expect(input).toHaveFocus();
  });

  it('can be used from the keyboard alone, in a sensible order', async () => {
    const { user } = renderApp();
    const order = [
      screen.getByRole('link', { name: 'Skip to message input' }),
      screen.getByRole('button', { name: 'New conversation' }),
      screen.getByRole('searchbox', { name: 'Search conversations' }),
      screen.getByRole('button', { name: 'Archived (0)' }),
      screen.getByRole('combobox', { name: 'Language' }),
      screen.getByRole('combobox', { name: 'Theme' }),
      screen.getByRole('button', { name: 'Open settings' }),
      screen.getByRole('textbox', { name: 'Message' }),
    ];
    // The app opens with the keyboard in the composer; from the page's start, the order is this.
    expect(order.at(-1)).toHaveFocus();
    (document.activeElement as HTMLElement).blur();
    for (const element of order) {
      await user.tab();
      expect(element).toHaveFocus();
    }

    // The skip link jumps straight to the composer, without touching the URL.
    order[0]?.focus();
    await user.keyboard('{Enter}');
    expect(screen.getByRole('textbox', { name: 'Message' })).toHaveFocus();
    expect(window.location.hash).toBe('');
  });

  it('says when a search matches no conversation', async () => {
    const { user } = renderApp();
    await user.type(screen.getByRole('searchbox', { name: 'Search conversations' }), 'invoice');
    expect(screen.getByText('No conversations match “invoice”')).toBeInTheDocument();
  });

  it('while an answer streams, only the log changes: the sidebar, header and composer are left alone', async () => {
    const frames = textStream.split('\n\n').filter((f) => f.trim() !== '');
    const [running, ...rest] = frames;
    const done = rest.slice(-2);
    const encoder = new TextEncoder();
    let push: (frame: string) => void = () => undefined;
    const { client } = fakeEngine({
      'GET /v1/conversations': () =>
        Response.json({ conversations: [{ id: 'conv-old', title: 'Older chat', pinned: false, archived: false, created_at: '2026-11-20T10:00:00Z', updated_at: '2026-11-20T10:00:00Z' }] }),
      'POST /v1/messages': (r) => {
        const body = r.body as { type: string; contextId: string };
        if (body.type === 'CLIENT_CAPABILITIES') return Response.json({ type: 'SYSTEM_MESSAGE', content: { action: 'INFO', text: 'announced' } });
        const stream = new ReadableStream<Uint8Array>({
          start(controller) {
            push = (frame) => controller.enqueue(encoder.encode(frame.replace(/"conversation_id":"[^"]*"/g, `"conversation_id":${JSON.stringify(body.contextId)}`) + '\n\n'));
            push(running ?? '');
          },
        });
        return new Response(stream, { status: 200, headers: { 'content-type': 'text/event-stream', 'x-tessera-run-id': 'run-1' } });
      },
    });
    const { user } = renderApp({ client });
    expect(await screen.findByText('Older chat')).toBeInTheDocument();
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'Write at length{Enter}');
    const log = screen.getByRole('log', { name: 'Messages' });
    await waitFor(() => expect(within(log).getByTestId('user-message')).toBeInTheDocument());
    // The font warm-up lays its samples out in stages just after start-up: let it finish.
    await waitFor(() => expect(document.querySelector<HTMLElement>('.font-warmup')?.dataset['stage']).toBe(String(FONT_WARMUP_STAGES)), { timeout: 5000 });

    const outside: string[] = [];
    const observer = new MutationObserver((records) => {
      for (const record of records) {
        const node = record.target instanceof Element ? record.target : record.target.parentElement;
        if (node && !log.contains(node)) outside.push(`${record.type} ${record.attributeName ?? ""} on ${node.className}: +${[...record.addedNodes].map((n) => (n as Element).className).join()} -${[...record.removedNodes].map((n) => (n as Element).className).join()}`);
      }
    });
    observer.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    const delta = (frames[1] ?? '').replace(/"seq":\d+/, '"seq":SEQ').replace(/^id: \d+/, 'id: SEQ');
    for (let seq = 2; seq < 40; seq++) {
      await act(async () => {
        push(delta.replaceAll('SEQ', String(seq)).replace('"delta":"Hello "', `"delta":"word${seq} "`));
        await new Promise((resolve) => setTimeout(resolve, 5));
      });
    }
    await waitFor(() => expect(within(log).getByText(/word39/)).toBeInTheDocument());
    observer.disconnect();
    expect(outside).toEqual([]);
    for (const frame of done) push(frame.replace(/"seq":\d+/, '"seq":40').replace(/^id: \d+/, 'id: 40'));
  });
});
