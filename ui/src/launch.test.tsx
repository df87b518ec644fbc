import { screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import formStream from './chat/fixtures/form1.sse?raw';
import { fakeEngine, openStream, sseFrom } from './test/fakeEngine';
import { renderApp, setBrowserLanguages } from './test/render';
import type { ConversationSummary } from './transport/client';
import { conversationRow } from './test/rows';

/** The sidebar's rows here have one message each. */
const row = (id: string, title: string, extra: Partial<ConversationSummary> = {}) => conversationRow(id, title, { message_count: 1, ...extra });

function question(conversation: string, text: string) {
  return { id: `${conversation}-q`, conversation_id: conversation, parent_id: null, depth: 0, message: { role: 'user', content: text } };
}

/** An engine listing `rows`, each with one question and nothing waiting unless `events` say so. */
function engineWith(rows: ConversationSummary[], events: Record<string, string> = {}) {
  const routes: Parameters<typeof fakeEngine>[0] = {
    'GET /v1/conversations': () => Response.json({ conversations: rows }),
    'GET /v1/interactions': () => Response.json({ interactions: [] }),
  };
  for (const r of rows) {
    routes[`GET /v1/conversations/${r.id}`] = () =>
      Response.json({ conversation: r, messages: [question(r.id, `Question of ${r.title}`)], siblings: {}, off_branch: [] });
    routes[`GET /v1/conversations/${r.id}/events`] = (request) =>
      request.headers['Last-Event-ID'] || !events[r.id] ? openStream() : sseFrom(events[r.id] ?? '', r.id);
  }
  return fakeEngine(routes);
}

describe('at launch', () => {
  beforeEach(() => setBrowserLanguages('en-US', 'en'));

  it('gives the composer the keyboard', async () => {
    const { client } = engineWith([]);
    renderApp({ client });
    await waitFor(() => expect(screen.getByRole('textbox', { name: 'Message' })).toHaveFocus());
  });

  it('reopens the conversation that was open when the app closed', async () => {
    localStorage.setItem('tessera.conversation', 'c2');
    const { client } = engineWith([row('c1', 'Groceries'), row('c2', 'Trip to Lisbon')]);
    renderApp({ client });
    expect(await screen.findByRole('heading', { level: 1, name: 'Trip to Lisbon' })).toBeInTheDocument();
    expect(await screen.findByText('Question of Trip to Lisbon')).toBeInTheDocument();
    const nav = screen.getByRole('navigation', { name: 'Conversations' });
    expect(within(nav).getByRole('button', { name: 'Trip to Lisbon' })).toHaveAttribute('aria-current', 'page');
    expect(screen.getByRole('textbox', { name: 'Message' })).toHaveFocus();
  });

  it('opens a new conversation when the one open last was deleted since', async () => {
    localStorage.setItem('tessera.conversation', 'gone');
    const { client, requests } = engineWith([row('c1', 'Groceries')]);
    renderApp({ client });
    await waitFor(() => expect(requests.some((r) => r.path === '/v1/conversations')).toBe(true));
    await screen.findByRole('button', { name: 'Groceries' });
    expect(screen.getByRole('heading', { level: 1, name: 'New conversation' })).toBeInTheDocument();
    expect(requests.filter((r) => r.path.startsWith('/v1/conversations/gone'))).toEqual([]);
  });

  it('marks the conversations that wait for the person, in words for a screen reader', async () => {
    const { client } = engineWith([row('c1', 'Groceries'), row('c2', 'Trip to Lisbon', { waits_for_person: true })]);
    renderApp({ client });
    const nav = screen.getByRole('navigation', { name: 'Conversations' });
    const waiting = await within(nav).findByRole('button', { name: 'Trip to Lisbon Waits for you' });
    expect(within(waiting).getByTestId('conversation-waiting')).toBeVisible();
    expect(within(nav).getByRole('button', { name: 'Groceries' })).toBeInTheDocument();
    expect(within(nav).getAllByTestId('conversation-waiting')).toHaveLength(1);
  });

  it('says it in Chinese in the Chinese UI', async () => {
    setBrowserLanguages('zh-CN', 'zh');
    const { client } = engineWith([row('c2', '去里斯本', { waits_for_person: true })]);
    renderApp({ client });
    expect(await screen.findByRole('button', { name: '去里斯本 等待你的回答' })).toBeInTheDocument();
  });

  it('marks the open conversation as soon as a form comes in it', async () => {
    localStorage.setItem('tessera.conversation', 'c2');
    const { client } = engineWith([row('c1', 'Groceries'), row('c2', 'Trip to Lisbon')], { c2: formStream });
    renderApp({ client });
    await screen.findByRole('form', { name: 'Your trip' });
    const nav = screen.getByRole('navigation', { name: 'Conversations' });
    expect(await within(nav).findByRole('button', { name: 'Trip to Lisbon Waits for you' })).toHaveAttribute('aria-current', 'page');
    expect(within(nav).getByRole('button', { name: 'Groceries' })).toBeInTheDocument();
  });
});
