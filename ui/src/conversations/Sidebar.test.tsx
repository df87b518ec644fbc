import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { I18nextProvider } from 'react-i18next';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createI18n } from '../i18n';
import { fakeEngine, type RecordedRequest } from '../test/fakeEngine';
import { setBrowserLanguages } from '../test/render';
import type { ConversationSummary, TesseraClient } from '../transport/client';
import { Sidebar } from './Sidebar';
import { SEARCH_DEBOUNCE_MS, UNDO_MS } from './useConversationList';
import { conversationRow as row } from '../test/rows';

/** An engine holding `rows`: list, PATCH and DELETE change them as `tessera serve` does. */
function engineWith(rows: ConversationSummary[], extraRoutes: Parameters<typeof fakeEngine>[0] = {}) {
  let stored = [...rows];
  const routes: Parameters<typeof fakeEngine>[0] = {
    'GET /v1/conversations': () => Response.json({ conversations: stored }),
  };
  for (const r of rows) {
    routes[`PATCH /v1/conversations/${r.id}`] = (request: RecordedRequest) => {
      stored = stored.map((c) => (c.id === r.id ? { ...c, ...(request.body as object) } : c));
      stored.sort((a, b) => Number(b.pinned) - Number(a.pinned));
      return Response.json(stored.find((c) => c.id === r.id));
    };
    routes[`DELETE /v1/conversations/${r.id}`] = () => {
      stored = stored.filter((c) => c.id !== r.id);
      return Response.json({ deleted: r.id, attachments_removed: 0 });
    };
  }
  return fakeEngine({ ...routes, ...extraRoutes });
}

function Harness({ client, initial, selected = null }: { client: TesseraClient; initial: ConversationSummary[]; selected?: string | null }) {
  const [list, setList] = useState(initial);
  const [selectedId, setSelectedId] = useState<string | null>(selected);
  return (
    <>
      <Sidebar
        client={client}
        conversations={list}
        selectedId={selectedId}
        onSelect={setSelectedId}
        onNewConversation={() => setSelectedId(null)}
        onRefresh={async () => setList(await client.listConversations())}
      />
      <output data-testid="selected">{selectedId ?? 'none'}</output>
    </>
  );
}

function renderSidebar(client: TesseraClient, initial: ConversationSummary[], selected: string | null = null, user = userEvent.setup()) {
  const i18n = createI18n();
  const result = render(
    <I18nextProvider i18n={i18n}>
      <Harness client={client} initial={initial} selected={selected} />
    </I18nextProvider>,
  );
  return { ...result, user };
}

/**
 * Fake timers for the undo and search delays. Testing Library waits for React with a
 * `setTimeout(0)` it advances only when it sees Jest's fake timers: it is shown Vitest's.
 */
function fakeClock() {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  (globalThis as { jest?: unknown }).jest = { advanceTimersByTime: (ms: number) => vi.advanceTimersByTime(ms) };
  return userEvent.setup({ delay: null });
}

const titles = () => screen.queryAllByTestId('conversation-item').map((b) => b.querySelector('.conversation-title-text')?.textContent);
const writes = (requests: RecordedRequest[]) => requests.filter((r) => r.method !== 'GET');

describe('the conversation list', () => {
  beforeEach(() => setBrowserLanguages('en-US', 'en'));
  afterEach(() => {
    vi.useRealTimers();
    delete (globalThis as { jest?: unknown }).jest;
  });

  it('renames inline: F2 or the menu opens the field, Enter saves the trimmed title, Escape cancels', async () => {
    const rows = [row('a', 'Alpha'), row('b', 'Beta')];
    const { client, requests } = engineWith(rows);
    const { user } = renderSidebar(client, rows);

    // From the menu; Escape leaves the title as it was and sends nothing.
    await user.click(screen.getByRole('button', { name: 'Actions for Alpha' }));
    await user.click(screen.getByRole('menuitem', { name: 'Rename' }));
    const field = screen.getByRole('textbox', { name: 'New name for Alpha' });
    expect(field).toHaveFocus();
    expect(field).toHaveValue('Alpha');
    await user.keyboard('Something else{Escape}');
    expect(screen.queryByRole('textbox', { name: 'New name for Alpha' })).not.toBeInTheDocument();
    expect(titles()).toEqual(['Alpha', 'Beta']);
    expect(writes(requests)).toEqual([]);
    expect(screen.getByRole('button', { name: 'Alpha' })).toHaveFocus();

    // F2 on the title; Enter saves.
    await user.keyboard('{F2}');
    const again = screen.getByRole('textbox', { name: 'New name for Alpha' });
    await user.clear(again);
    await user.type(again, '  Budget 2027  {Enter}');
    expect(titles()).toEqual(['Budget 2027', 'Beta']);
    await waitFor(() => expect(writes(requests)).toHaveLength(1));
    expect(writes(requests)[0]).toMatchObject({ method: 'PATCH', path: '/v1/conversations/a', body: { title: 'Budget 2027' } });
    await waitFor(() => expect(screen.getByRole('button', { name: 'Budget 2027' })).toHaveFocus());

    // An empty name changes nothing.
    await user.keyboard('{F2}');
    await user.clear(screen.getByRole('textbox', { name: 'New name for Budget 2027' }));
    await user.keyboard('{Enter}');
    expect(titles()).toEqual(['Budget 2027', 'Beta']);
    expect(writes(requests)).toHaveLength(1);
  });

  it('shows a refused rename as it was, and says why', async () => {
    const rows = [row('a', 'Alpha')];
    const { client } = engineWith(rows, {
      'PATCH /v1/conversations/a': () =>
        Response.json({ type: 'ERROR_RESPONSE', content: { errorCode: 'BAD_REQUEST', message: 'title is longer than 200 characters' } }, { status: 400 }),
    });
    const { user } = renderSidebar(client, rows);
    await user.click(screen.getByRole('button', { name: 'Actions for Alpha' }));
    await user.click(screen.getByRole('menuitem', { name: 'Rename' }));
    await user.keyboard('{Control>}a{/Control}Too long{Enter}');
    expect(await screen.findByRole('alert')).toHaveTextContent('Could not change “Alpha”: title is longer than 200 characters (BAD_REQUEST)');
    expect(titles()).toEqual(['Alpha']);
  });

  it('hides a deleted conversation at once and sends DELETE only when the undo time is over', async () => {
    const user = fakeClock();
    const rows = [row('a', 'Alpha'), row('b', 'Beta'), row('c', 'Gamma')];
    const { client, requests } = engineWith(rows);
    const { unmount } = renderSidebar(client, rows, 'a', user);
    // The open conversation: gone from the list, a new conversation shown instead.
    await user.click(screen.getByRole('button', { name: 'Actions for Alpha' }));
    await user.click(screen.getByRole('menuitem', { name: 'Delete' }));
    expect(titles()).toEqual(['Beta', 'Gamma']);
    expect(screen.getByTestId('selected')).toHaveTextContent('none');
    const notice = screen.getByTestId('undo-notice');
    expect(notice).toHaveTextContent('“Alpha” deleted');

    await act(() => vi.advanceTimersByTimeAsync(UNDO_MS - 1));
    expect(writes(requests)).toEqual([]);
    await user.click(within(notice).getByRole('button', { name: 'Undo' }));
    expect(titles()).toEqual(['Alpha', 'Beta', 'Gamma']);
    expect(screen.queryByTestId('undo-notice')).not.toBeInTheDocument();
    await act(() => vi.advanceTimersByTimeAsync(UNDO_MS * 2));
    expect(writes(requests)).toEqual([]);

    // Not undone: DELETE once the time is over, and the list read again.
    await user.click(screen.getByRole('button', { name: 'Actions for Beta' }));
    await user.click(screen.getByRole('menuitem', { name: 'Delete' }));
    await act(() => vi.advanceTimersByTimeAsync(UNDO_MS - 1));
    expect(writes(requests)).toEqual([]);
    await act(() => vi.advanceTimersByTimeAsync(1));
    expect(writes(requests)).toEqual([expect.objectContaining({ method: 'DELETE', path: '/v1/conversations/b' })]);
    expect(screen.queryByTestId('undo-notice')).not.toBeInTheDocument();
    expect(titles()).toEqual(['Alpha', 'Gamma']);

    // The app closes while a deletion waits: nothing is deleted.
    await user.click(screen.getByRole('button', { name: 'Actions for Gamma' }));
    await user.click(screen.getByRole('menuitem', { name: 'Delete' }));
    unmount();
    await vi.advanceTimersByTimeAsync(UNDO_MS * 2);
    expect(writes(requests)).toHaveLength(1);
  });

  it('searches on the engine once typing pauses, marks the words found, and shows the list again when cleared', async () => {
    const user = fakeClock();
    const rows = [row('a', 'Alpha'), row('zh', '云服务器')];
    const { client, requests } = engineWith(rows, {
      'GET /v1/conversations?archived=all&q=%E7%BB%AD%E8%AE%A2': () =>
        Response.json({
          conversations: [{ ...rows[1], match: { message_id: 'm1', snippet: '包周期续订的接口是？', highlight: [3, 5] } }],
        }),
    });
    renderSidebar(client, rows, null, user);
    const search = screen.getByRole('searchbox', { name: 'Search conversations' });

    // Typing fast sends one search, for the whole query, after the pause.
    fireEvent.change(search, { target: { value: '续' } });
    fireEvent.change(search, { target: { value: '续订' } });
    await act(() => vi.advanceTimersByTimeAsync(SEARCH_DEBOUNCE_MS - 1));
    expect(requests.filter((r) => r.path.includes('q='))).toEqual([]);
    await act(() => vi.advanceTimersByTimeAsync(1));
    expect(requests.filter((r) => r.path.includes('q=')).map((r) => r.path)).toEqual(['/v1/conversations?archived=all&q=%E7%BB%AD%E8%AE%A2']);
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(titles()).toEqual(['云服务器']);
    const snippet = screen.getByTestId('conversation-snippet');
    expect(snippet).toHaveTextContent('包周期续订的接口是？');
    expect(snippet.querySelector('mark')).toHaveTextContent('续订');

    // Escape clears the search: the whole list again, without asking the engine.
    const before = requests.length;
    await user.type(search, '{Escape}');
    expect(search).toHaveValue('');
    expect(titles()).toEqual(['Alpha', '云服务器']);
    await act(() => vi.advanceTimersByTimeAsync(SEARCH_DEBOUNCE_MS * 2));
    expect(requests.length).toBe(before);
  });

  it('pins to the top, archives into a view of its own, and unarchives from there', async () => {
    const rows = [row('a', 'Alpha'), row('b', 'Beta')];
    const { client, requests } = engineWith(rows);
    const { user } = renderSidebar(client, rows);

    await user.click(screen.getByRole('button', { name: 'Actions for Beta' }));
    await user.click(screen.getByRole('menuitem', { name: 'Pin' }));
    expect(titles()).toEqual(['Beta', 'Alpha']);
    await waitFor(() => expect(writes(requests)[0]).toMatchObject({ method: 'PATCH', body: { pinned: true } }));
    await user.click(screen.getByRole('button', { name: 'Actions for Beta' }));
    expect(screen.getByRole('menuitem', { name: 'Unpin' })).toBeInTheDocument();
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('menu')).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Actions for Beta' })).toHaveFocus();

    await user.click(screen.getByRole('button', { name: 'Actions for Alpha' }));
    await user.click(screen.getByRole('menuitem', { name: 'Archive' }));
    expect(titles()).toEqual(['Beta']);
    await user.click(await screen.findByRole('button', { name: 'Archived (1)' }));
    expect(screen.getByRole('heading', { name: 'Archived conversations' })).toBeInTheDocument();
    expect(titles()).toEqual(['Alpha']);
    await user.click(screen.getByRole('button', { name: 'Actions for Alpha' }));
    await user.click(screen.getByRole('menuitem', { name: 'Unarchive' }));
    expect(screen.getByText('No archived conversations')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Back to conversations' }));
    expect(titles()).toEqual(['Beta', 'Alpha']);
    await waitFor(() => expect(writes(requests)).toHaveLength(3));
  });

  it('the menu is used from the keyboard: arrows move, Enter chooses', async () => {
    const rows = [row('a', 'Alpha')];
    const { client, requests } = engineWith(rows);
    const { user } = renderSidebar(client, rows);
    screen.getByRole('button', { name: 'Actions for Alpha' }).focus();
    await user.keyboard('{Enter}');
    expect(screen.getByRole('menuitem', { name: 'Rename' })).toHaveFocus();
    await user.keyboard('{ArrowUp}');
    expect(screen.getByRole('menuitem', { name: 'Delete' })).toHaveFocus();
    await user.keyboard('{ArrowDown}{ArrowDown}');
    expect(screen.getByRole('menuitem', { name: 'Pin' })).toHaveFocus();
    await user.keyboard('{Enter}');
    await waitFor(() => expect(writes(requests)).toHaveLength(1));
    expect(screen.getByTestId('conversation-row')).toHaveAttribute('data-pinned', 'true');
  });

  it('imports a file, opening the new conversation; a file that is wrong says exactly why', async () => {
    const rows = [row('a', 'Alpha')];
    const imported = row('new', 'Imported one');
    let stored = [...rows];
    const { client } = fakeEngine({
      'GET /v1/conversations': () => Response.json({ conversations: stored }),
      'POST /v1/conversations/import': (r) => {
        const body = r.body as { schema_version?: string };
        if (body.schema_version) {
          stored = [imported, ...stored];
          return Response.json({ conversation_id: 'new', messages: 2, evidences: 0 }, { status: 201 });
        }
        return Response.json(
          {
            type: 'ERROR_RESPONSE',
            content: {
              errorCode: 'INVALID_DOCUMENT',
              message: 'the document is not valid',
              details: { problems: [{ path: 'session.session_id', message: 'required' }, { path: 'session.messages[0].role', message: 'required' }] },
            },
          },
          { status: 422 },
        );
      },
    });
    const { user } = renderSidebar(client, rows);
    const picker = screen.getByLabelText('Import a conversation (a context document or MCP-CP messages, JSON)');

    await user.upload(picker, new File(['{not json'], 'broken.json', { type: 'application/json' }));
    expect(await screen.findByTestId('import-outcome')).toHaveTextContent(/^broken\.json is not JSON: /);

    await user.upload(picker, new File([JSON.stringify({ session: {} })], 'bad.json', { type: 'application/json' }));
    const outcome = await screen.findByText('bad.json cannot be imported:');
    const problems = within(outcome.closest('[data-testid="import-outcome"]') as HTMLElement).getAllByRole('listitem');
    expect(problems.map((p) => p.textContent)).toEqual(['session.session_id: required', 'session.messages[0].role: required']);

    await user.upload(picker, new File([JSON.stringify({ schema_version: '1.0', session: {} })], 'good.json', { type: 'application/json' }));
    await waitFor(() => expect(screen.getByTestId('selected')).toHaveTextContent('new'));
    expect(screen.getByTestId('import-outcome')).toHaveTextContent('Imported good.json');
    expect(titles()).toEqual(['Imported one', 'Alpha']);
  });
});

describe('the intent to open a conversation', () => {
  it('is told when the pointer or the keyboard reaches the list, before any click', async () => {
    const { client } = fakeEngine({ 'GET /v1/conversations': () => Response.json({ conversations: [] }) });
    const onIntent = vi.fn();
    const user = userEvent.setup();
    render(
      <I18nextProvider i18n={createI18n()}>
        <Sidebar onNewConversation={() => undefined} client={client} conversations={[row('c1', 'Trip plan'), row('c2', 'Budget')]} onIntent={onIntent} />
      </I18nextProvider>,
    );
    await user.hover(screen.getByTestId('conversation-list'));
    expect(onIntent).toHaveBeenCalled();
    onIntent.mockClear();
    screen.getAllByTestId('conversation-item')[0]?.focus();
    expect(onIntent).toHaveBeenCalled();
  });
});
