import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { I18nextProvider } from 'react-i18next';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Sidebar } from '../conversations/Sidebar';
import { createI18n, type Language } from '../i18n';
import { fakeEngine, type RecordedRequest } from '../test/fakeEngine';
import { setBrowserLanguages } from '../test/render';
import type { Memory } from './api';
import { MemoryPanel } from './MemoryPanel';
import { conversationRow as conversation, projectRow } from '../test/rows';

const project = (id: string, name: string) => projectRow(id, name, { conversations: 1 });

function memory(id: string, content: string, extra: Partial<Memory> = {}): Memory {
  return {
    id,
    scope: 'everywhere',
    project_id: null,
    key: null,
    content,
    source_conversation_id: null,
    source_message_id: null,
    created_at: '2026-11-21T09:30:00.000Z',
    updated_at: '2026-11-21T09:30:00.000Z',
    ...extra,
  };
}

const refused = (code: string, message: string, status: number) => Response.json({ type: 'ERROR_RESPONSE', content: { errorCode: code, message } }, { status });

const CONVERSATIONS = [conversation('c1', 'Trip planning'), conversation('c2', 'Chapter draft', { project_id: 'p1' })];
const PROJECTS = [project('p1', 'Thesis')];
const MEMORIES = [
  memory('c1/memory:diet', 'Vegetarian on this trip', { scope: 'conversation', key: 'diet', source_conversation_id: 'c1', source_message_id: 'm1' }),
  memory('mem-project', 'Cite with APA 7', { scope: 'project', project_id: 'p1', source_conversation_id: 'c2', source_message_id: 'm2' }),
  memory('mem-everywhere', 'Answer in short paragraphs', { source_conversation_id: 'c1', source_message_id: 'm3', updated_at: '2026-11-22T09:30:00.000Z' }),
];

/**
 * An engine holding memories as the server does: listed by scope and words, edited (refusing
 * an empty text) and forgotten by their percent-encoded id.
 */
function engineWith(memories: Memory[]) {
  const state = { memories: [...memories] };
  const routes: Parameters<typeof fakeEngine>[0] = {
    'GET /v1/projects': () => Response.json({ projects: PROJECTS }),
    'GET /v1/conversations': () => Response.json({ conversations: CONVERSATIONS }),
    'GET /v1/memories': (request: RecordedRequest) => {
      const query = new URL(request.path, 'http://x').searchParams;
      const scope = query.get('scope');
      const q = query.get('q')?.toLowerCase();
      return Response.json({ memories: state.memories.filter((m) => (!scope || m.scope === scope) && (!q || m.content.toLowerCase().includes(q))) });
    },
  };
  for (const m of memories) {
    const path = `/v1/memories/${encodeURIComponent(m.id)}`;
    routes[`PATCH ${path}`] = (request) => {
      const content = (request.body as { content: string }).content.trim();
      if (!content) return refused('BAD_REQUEST', 'the memory is not valid: the content is empty', 400);
      const changed = { ...m, content, updated_at: '2026-11-23T09:30:00.000Z' };
      state.memories = state.memories.map((x) => (x.id === m.id ? changed : x));
      return Response.json(changed);
    };
    routes[`DELETE ${path}`] = () => {
      const gone = state.memories.find((x) => x.id === m.id);
      if (!gone) return refused('NOT_FOUND', `no memory ${m.id}`, 404);
      state.memories = state.memories.filter((x) => x.id !== m.id);
      return Response.json({ forgotten: gone });
    };
  }
  return { ...fakeEngine(routes), state };
}

function renderPanel(engine: ReturnType<typeof engineWith>, extra: { onOpenConversation?: (id: string) => void; onClose?: () => void; language?: Language } = {}) {
  const user = userEvent.setup();
  const result = render(
    <I18nextProvider i18n={createI18n(extra.language ?? 'en')}>
      <MemoryPanel client={engine.client} conversations={CONVERSATIONS} projects={PROJECTS} onOpenConversation={extra.onOpenConversation} onClose={extra.onClose ?? (() => undefined)} />
    </I18nextProvider>,
  );
  return { ...result, user };
}

const itemWith = async (text: string) => {
  const content = await screen.findByText(text);
  return content.closest('li') as HTMLElement;
};

const memoryRequests = (engine: ReturnType<typeof engineWith>, method = 'GET') => engine.requests.filter((r) => r.method === method && r.path.startsWith('/v1/memories'));

describe('the Memory panel', () => {
  beforeEach(() => setBrowserLanguages('en-US', 'en'));
  afterEach(() => vi.restoreAllMocks());

  it('opens from the sidebar and lists memories of each scope with where they came from; “Open” opens that conversation', async () => {
    const engine = engineWith(MEMORIES);
    const onSelect = vi.fn();
    const user = userEvent.setup();
    render(
      <I18nextProvider i18n={createI18n('en')}>
        <Sidebar client={engine.client} conversations={CONVERSATIONS} onNewConversation={() => undefined} onSelect={onSelect} />
      </I18nextProvider>,
    );
    const opener = screen.getByTestId('open-memory');
    expect(opener).toHaveTextContent('Memory');
    await user.click(opener);
    const panel = await screen.findByRole('dialog', { name: 'Memory' });
    const list = await within(panel).findByRole('list', { name: 'Memories' });
    expect(within(list).getAllByTestId('memory-item')).toHaveLength(3);
    expect(memoryRequests(engine)[0]?.path).toBe('/v1/memories');

    const diet = await itemWith('Vegetarian on this trip');
    expect(within(diet).getByTestId('memory-scope')).toHaveTextContent('This conversation only');
    expect(within(diet).getByText('diet')).toBeInTheDocument();
    expect(within(diet).getByTestId('memory-source')).toHaveTextContent('Saved in conversation “Trip planning”');

    // The project's name, once the projects are listed.
    const apa = await itemWith('Cite with APA 7');
    await waitFor(() => expect(within(apa).getByTestId('memory-scope')).toHaveTextContent('Project: Thesis'));
    expect(within(apa).getByTestId('memory-source')).toHaveTextContent('Saved in conversation “Chapter draft”');

    const short = await itemWith('Answer in short paragraphs');
    expect(within(short).getByTestId('memory-scope')).toHaveTextContent('Every conversation');
    expect(within(short).getByTestId('memory-when')).toHaveTextContent(/^Changed /);
    expect(within(diet).getByTestId('memory-when')).toHaveTextContent(/^Saved /);

    await user.click(within(apa).getByRole('button', { name: 'Open conversation “Chapter draft”' }));
    expect(onSelect).toHaveBeenCalledWith('c2');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('a scope filter asks for that scope only', async () => {
    const engine = engineWith(MEMORIES);
    const { user } = renderPanel(engine);
    await screen.findByText('Cite with APA 7');
    await user.click(screen.getByRole('button', { name: 'Project' }));
    await waitFor(() => expect(screen.queryByText('Vegetarian on this trip')).not.toBeInTheDocument());
    expect(screen.getByText('Cite with APA 7')).toBeInTheDocument();
    expect(memoryRequests(engine).at(-1)?.path).toBe('/v1/memories?scope=project');
    expect(screen.getByRole('button', { name: 'Project' })).toHaveAttribute('aria-pressed', 'true');
  });

  it('searching sends q once typing stops, and says when nothing matches', async () => {
    const engine = engineWith(MEMORIES);
    const { user } = renderPanel(engine);
    await screen.findByText('Cite with APA 7');
    await user.type(screen.getByRole('searchbox', { name: 'Search memories' }), 'apa 7');
    await waitFor(() => expect(screen.queryByText('Vegetarian on this trip')).not.toBeInTheDocument());
    expect(screen.getByText('Cite with APA 7')).toBeInTheDocument();
    // One listing at the start, one for the words as typed: not one per key.
    expect(memoryRequests(engine).map((r) => r.path)).toEqual(['/v1/memories', '/v1/memories?q=apa%207']);

    await user.clear(screen.getByRole('searchbox'));
    await user.type(screen.getByRole('searchbox'), 'nothing like it');
    expect(await screen.findByTestId('memory-empty')).toHaveTextContent('No memories match.');
  });

  it('editing sends PATCH with the content and shows the new text', async () => {
    const engine = engineWith(MEMORIES);
    const { user } = renderPanel(engine);
    const item = await itemWith('Answer in short paragraphs');
    await user.click(within(item).getByRole('button', { name: 'Edit the memory “Answer in short paragraphs”' }));
    const text = within(item).getByRole('textbox', { name: 'Memory text' });
    expect(text).toHaveFocus();
    await user.clear(text);
    await user.type(text, 'Answer in one paragraph');
    await user.click(within(item).getByRole('button', { name: 'Save' }));

    await waitFor(() => expect(within(item).getByTestId('memory-content')).toHaveTextContent('Answer in one paragraph'));
    const patch = memoryRequests(engine, 'PATCH')[0];
    expect(patch?.path).toBe('/v1/memories/mem-everywhere');
    expect(patch?.body).toEqual({ content: 'Answer in one paragraph' });
    // Back on its Edit button.
    expect(within(item).getByRole('button', { name: /^Edit the memory/ })).toHaveFocus();
  });

  it('an empty edit shows the refusal in the person’s language and stays open', async () => {
    const engine = engineWith(MEMORIES);
    const { user } = renderPanel(engine);
    const item = await itemWith('Cite with APA 7');
    await user.click(within(item).getByRole('button', { name: /^Edit the memory/ }));
    const text = within(item).getByRole('textbox', { name: 'Memory text' });
    await user.clear(text);
    // Ctrl+Enter saves from the keyboard.
    await user.keyboard('{Control>}{Enter}{/Control}');

    const alert = await within(item).findByRole('alert');
    expect(alert).toHaveTextContent('A memory needs some text, at most 4,000 characters. (the memory is not valid: the content is empty)');
    expect(memoryRequests(engine, 'PATCH')[0]?.body).toEqual({ content: '' });
    expect(text).toHaveAttribute('aria-invalid', 'true');

    // Escape cancels the edit, not the panel: the old text is back.
    await user.keyboard('{Escape}');
    expect(within(item).getByTestId('memory-content')).toHaveTextContent('Cite with APA 7');
    expect(screen.getByRole('dialog', { name: 'Memory' })).toBeInTheDocument();
  });

  it('forgetting asks first, sends DELETE with the id percent-encoded and removes it', async () => {
    const engine = engineWith(MEMORIES);
    const { user } = renderPanel(engine);
    const item = await itemWith('Vegetarian on this trip');
    await user.click(within(item).getByRole('button', { name: 'Forget the memory “Vegetarian on this trip”' }));
    expect(memoryRequests(engine, 'DELETE')).toHaveLength(0);
    await user.click(within(item).getByRole('button', { name: 'Forget' }));

    await waitFor(() => expect(screen.queryByText('Vegetarian on this trip')).not.toBeInTheDocument());
    expect(memoryRequests(engine, 'DELETE').map((r) => r.path)).toEqual(['/v1/memories/c1%2Fmemory%3Adiet']);
    expect(screen.getAllByTestId('memory-item')).toHaveLength(2);
    expect(screen.getByTestId('memory-note')).toHaveTextContent('Memory forgotten');
    expect(screen.getByRole('dialog', { name: 'Memory' })).toHaveFocus();
  });

  it('Escape closes the panel and the keyboard goes back to the Memory button', async () => {
    const engine = engineWith([]);
    const user = userEvent.setup();
    render(
      <I18nextProvider i18n={createI18n('en')}>
        <Sidebar client={engine.client} conversations={[]} onNewConversation={() => undefined} />
      </I18nextProvider>,
    );
    await user.click(screen.getByTestId('open-memory'));
    expect(await screen.findByTestId('memory-empty')).toHaveTextContent('No memories yet.');
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(screen.getByTestId('open-memory')).toHaveFocus();
  });

  it('speaks Chinese when the person does', async () => {
    const engine = engineWith(MEMORIES);
    renderPanel(engine, { language: 'zh-CN' });
    expect(await screen.findByRole('dialog', { name: '记忆' })).toBeInTheDocument();
    const item = await itemWith('Cite with APA 7');
    expect(within(item).getByTestId('memory-scope')).toHaveTextContent('项目：Thesis');
    expect(within(item).getByTestId('memory-source')).toHaveTextContent('保存于对话“Chapter draft”');
    expect(screen.getByRole('button', { name: '所有对话' })).toBeInTheDocument();
  });
});
