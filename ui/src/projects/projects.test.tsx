import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { I18nextProvider } from 'react-i18next';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Sidebar } from '../conversations/Sidebar';
import type { KnowledgeStatus } from '../generated/KnowledgeStatus';
import { createI18n } from '../i18n';
import { fakeEngine, type RecordedRequest } from '../test/fakeEngine';
import { setBrowserLanguages } from '../test/render';
import type { ConversationSummary, TesseraClient } from '../transport/client';
import { ProjectsApi, type Project } from './api';
import { groupByProject } from './groups';
import { ProjectView } from './ProjectView';
import { projectRow as project, conversationRow as conversation } from '../test/rows';

function status(extra: Partial<KnowledgeStatus> = {}): KnowledgeStatus {
  return {
    indexed_files: 0,
    skipped_files: 0,
    pending: 0,
    bytes: 0,
    chunks: 0,
    skipped: [],
    scanning: null,
    paused: false,
    idle: true,
    retrieval: 'lexical',
    embedding_model: null,
    embedded_chunks: 0,
    embed_error: null,
    ...extra,
  };
}

const refused = (code: string, message: string, status = 400) =>
  Response.json({ type: 'ERROR_RESPONSE', content: { errorCode: code, message } }, { status });

/** An engine holding projects and conversations: list, create and move change them as the server does. */
function engineWith(projects: Project[], conversations: ConversationSummary[], extra: Parameters<typeof fakeEngine>[0] = {}) {
  const state = { projects: [...projects], conversations: [...conversations] };
  const routes: Parameters<typeof fakeEngine>[0] = {
    'GET /v1/projects': () => Response.json({ projects: state.projects }),
    'POST /v1/projects': (request: RecordedRequest) => {
      const body = request.body as { name: string; instructions?: string };
      const made = project(`p-${body.name}`, body.name, { instructions: body.instructions ?? '' });
      state.projects = [...state.projects, made].sort((a, b) => a.name.localeCompare(b.name));
      return Response.json(made, { status: 201 });
    },
    'GET /v1/conversations': () => Response.json({ conversations: state.conversations }),
  };
  for (const c of conversations) {
    routes[`PUT /v1/conversations/${c.id}/project`] = (request: RecordedRequest) => {
      const wanted = (request.body as { project: string | null }).project;
      const target = state.projects.find((p) => p.id === wanted || p.name === wanted) ?? null;
      state.conversations = state.conversations.map((x) => (x.id === c.id ? { ...x, project_id: target?.id ?? null } : x));
      return Response.json({ project: target?.name ?? null });
    };
  }
  return { ...fakeEngine({ ...routes, ...extra }), state };
}

function Harness({ client, initial }: { client: TesseraClient; initial: ConversationSummary[] }) {
  const [list, setList] = useState(initial);
  return <Sidebar client={client} conversations={list} onNewConversation={() => undefined} onRefresh={async () => setList(await client.listConversations())} onNewConversationInProject={() => undefined} />;
}

function renderWithI18n(node: React.ReactNode) {
  const user = userEvent.setup();
  return { ...render(<I18nextProvider i18n={createI18n()}>{node}</I18nextProvider>), user };
}

describe('projects', () => {
  beforeEach(() => setBrowserLanguages('en-US', 'en'));
  afterEach(() => vi.restoreAllMocks());

  it('creating a project shows it in the panel and as a header in the sidebar', async () => {
    const engine = engineWith([], [conversation('c1', 'Loose talk')]);
    const { user } = renderWithI18n(<Harness client={engine.client} initial={engine.state.conversations} />);
    await user.click(screen.getByTestId('open-projects'));
    const panel = await screen.findByRole('dialog', { name: 'Projects' });
    await within(panel).findByText(/No projects yet/);
    await user.type(within(panel).getByLabelText('Name'), 'Thesis');
    await user.type(within(panel).getByTestId('project-new-instructions'), 'Cite sources.');
    await user.click(within(panel).getByRole('button', { name: 'Create project' }));

    const list = await within(panel).findByRole('list', { name: 'Your projects' });
    expect(within(list).getByText('Thesis')).toBeInTheDocument();
    expect(within(panel).getByText('Project “Thesis” created')).toBeInTheDocument();
    expect(engine.requests.find((r) => r.method === 'POST')?.body).toEqual({ name: 'Thesis', instructions: 'Cite sources.' });

    // Just created, it has a header in the sidebar before it has any conversation, then "No project".
    const headers = screen.getAllByTestId('project-group').map((g) => within(g).getByRole('heading').textContent);
    expect(headers).toEqual(['Thesis', 'No project']);
    expect(screen.getByRole('button', { name: 'New chat in Thesis' })).toBeInTheDocument();
  });

  it('a refused name (INVALID_PROJECT) says why in the person’s language, with the engine’s words', async () => {
    const engine = engineWith([], [], { 'POST /v1/projects': () => refused('INVALID_PROJECT', 'the name holds a control character') });
    const { user } = renderWithI18n(<Harness client={engine.client} initial={[]} />);
    await user.click(screen.getByTestId('open-projects'));
    const panel = await screen.findByRole('dialog', { name: 'Projects' });
    await user.type(within(panel).getByLabelText('Name'), 'bad');
    await user.click(within(panel).getByRole('button', { name: 'Create project' }));
    const alert = await within(panel).findByTestId('project-create-error');
    expect(alert).toHaveTextContent('Could not create the project: This name or these instructions cannot be used. (the name holds a control character)');
  });

  it('while files wait it shows the scan’s progress, and a skipped file with its reason', async () => {
    const knowledge = status({
      indexed_files: 12,
      chunks: 80,
      pending: 2,
      idle: false,
      scanning: { project_id: 'p1', source: '/home/me/notes', done: 4, total: 10, files_per_second: 2, seconds_left: 3 },
      skipped_files: 1,
      skipped: [{ path: '/home/me/notes/photo.raw', reason: 'not a text format' }],
    });
    const engine = fakeEngine({
      'GET /v1/projects/p1': () => Response.json({ project: project('p1', 'Notes', { sources: [{ path: '/home/me/notes', kind: 'folder', added_at: '2026-11-20T10:00:00.000Z' }] }), knowledge }),
    });
    renderWithI18n(<ProjectView api={ProjectsApi.of(engine.client)} projectId="p1" onChanged={() => undefined} onRemoved={() => undefined} />);
    const progress = await screen.findByTestId('knowledge-progress');
    expect(progress).toHaveTextContent('Reading /home/me/notes: 4 of 10 files, about 3 s left · Waiting to be read: 2');
    expect(screen.getByText('12 files indexed, 80 passages')).toBeInTheDocument();
    const skipped = screen.getByTestId('skipped-file');
    expect(skipped).toHaveTextContent('/home/me/notes/photo.raw');
    expect(skipped).toHaveTextContent('not a text format');
    expect(screen.getByTestId('lexical-note')).toHaveTextContent('Search works by words (no embedding model yet).');
    // Not idle: read again a second later.
    await waitFor(() => expect(engine.requests.filter((r) => r.path === '/v1/projects/p1').length).toBeGreaterThan(1), { timeout: 2500 });
  });

  it('reading can be paused while it runs, and a model chosen to search by meaning', async () => {
    let paused = false;
    const engine = fakeEngine({
      'GET /v1/projects/p1': () =>
        Response.json({ project: project('p1', 'Notes'), knowledge: status({ idle: false, pending: 3, paused }) }),
      'POST /v1/knowledge/pause': () => {
        paused = true;
        return Response.json(status({ paused: true }));
      },
      'PUT /v1/settings/knowledge_embedding': () => Response.json({ settings: {}, spent_today_usd: 0 }),
    });
    const { user } = renderWithI18n(<ProjectView api={ProjectsApi.of(engine.client)} projectId="p1" onChanged={() => undefined} onRemoved={() => undefined} />);
    await user.click(await screen.findByRole('button', { name: 'Pause reading files' }));
    expect(await screen.findByRole('button', { name: 'Resume reading files' })).toBeInTheDocument();
    expect(engine.requests.some((r) => r.method === 'POST' && r.path === '/v1/knowledge/pause')).toBe(true);
    await user.click(screen.getByText('Search by meaning…'));
    await user.type(screen.getByLabelText('Provider'), 'ollama');
    await user.type(screen.getByLabelText('Embedding model'), 'bge-m3');
    await user.click(screen.getByRole('button', { name: 'Use this model' }));
    await waitFor(() =>
      expect(engine.requests.find((r) => r.method === 'PUT')?.body).toEqual({ value: { provider: 'ollama', model: 'bge-m3' } }),
    );
  });

  it('an added folder that does not exist (INVALID_KNOWLEDGE_SOURCE) says so', async () => {
    const engine = fakeEngine({
      'GET /v1/projects/p1': () => Response.json({ project: project('p1', 'Notes'), knowledge: status() }),
      'POST /v1/projects/p1/knowledge': () => refused('INVALID_KNOWLEDGE_SOURCE', '/nope does not exist'),
    });
    const { user } = renderWithI18n(<ProjectView api={ProjectsApi.of(engine.client)} projectId="p1" onChanged={() => undefined} onRemoved={() => undefined} />);
    await user.type(await screen.findByTestId('project-folder-path'), '/nope');
    await user.click(screen.getByRole('button', { name: 'Add folder' }));
    expect(await screen.findByTestId('project-error')).toHaveTextContent('This folder cannot be added');
    expect(engine.requests.find((r) => r.method === 'POST')?.body).toEqual({ path: '/nope' });
  });

  it('“Move to project…” sends the PUT with the project and the list shows it there', async () => {
    const engine = engineWith([project('p1', 'Thesis')], [conversation('c1', 'Chapter plan'), conversation('c2', 'Lunch')]);
    const { user } = renderWithI18n(<Harness client={engine.client} initial={engine.state.conversations} />);
    // Once the projects are listed the sidebar groups by project (only "No project" has rows).
    await waitFor(() => expect(screen.getAllByTestId('project-group')).toHaveLength(1));
    const row = screen.getAllByTestId('conversation-row').find((r) => r.textContent?.includes('Chapter plan'));
    await user.click(within(row!).getByTestId('conversation-menu-button'));
    await user.click(screen.getByRole('menuitem', { name: 'Move to project…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Move “Chapter plan” to' });
    await user.click(within(dialog).getByRole('button', { name: 'Thesis' }));

    await waitFor(() => expect(engine.requests.some((r) => r.method === 'PUT')).toBe(true));
    const put = engine.requests.find((r) => r.method === 'PUT');
    expect(put?.path).toBe('/v1/conversations/c1/project');
    expect(put?.body).toEqual({ project: 'p1' });
    const group = await screen.findByRole('list', { name: 'Conversations in Thesis' });
    expect(within(group).getByText('Chapter plan')).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('“No project” moves it out with a null project', async () => {
    const engine = engineWith([project('p1', 'Thesis')], [conversation('c1', 'Chapter plan', { project_id: 'p1' })]);
    const { user } = renderWithI18n(<Harness client={engine.client} initial={engine.state.conversations} />);
    await screen.findByRole('list', { name: 'Conversations in Thesis' });
    await user.click(screen.getByTestId('conversation-menu-button'));
    await user.click(screen.getByRole('menuitem', { name: 'Move to project…' }));
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'No project' }));
    await waitFor(() => expect(engine.requests.find((r) => r.method === 'PUT')?.body).toEqual({ project: null }));
    expect(await screen.findByRole('list', { name: 'Conversations in No project' })).toBeInTheDocument();
  });
});

describe('groupByProject', () => {
  it('lists the projects with rows or just created, in order, then unknown ones, then no project', () => {
    const rows = [conversation('a', 'A', { project_id: 'p2' }), conversation('b', 'B'), conversation('c', 'C', { project_id: 'gone' })];
    const groups = groupByProject(rows, [project('p1', 'Alpha'), project('p2', 'Beta'), project('p3', 'Gamma')], new Set(['p3']));
    expect(groups.map((g) => [g.id, g.rows.map((r) => r.id)])).toEqual([
      ['p2', ['a']],
      ['p3', []],
      ['gone', ['c']],
      [null, ['b']],
    ]);
  });
});
