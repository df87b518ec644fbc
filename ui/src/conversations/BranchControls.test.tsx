import { screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import textStream from '../chat/fixtures/text.sse?raw';
import { fakeEngine, openStream, sseFrom } from '../test/fakeEngine';
import { renderApp, setBrowserLanguages } from '../test/render';
import type { ConversationDetail, StoredMessage } from '../transport/client';

/** The recorded run's message id: its events answer `OLD`. */
const OLD = '01a209cc-73f5-75f1-9911-04c7b5c162eb';

function message(id: string, role: 'user' | 'assistant', content: string, parent: string | null, depth: number): StoredMessage {
  return { id, conversation_id: 'c', parent_id: parent, depth, message: { role, content } };
}

const question = message('q', 'user', 'Say hello', null, 0);
const first = message(OLD, 'assistant', 'Hello **world**', 'q', 1);
const second = message('a2', 'assistant', 'Hi there, second try', 'q', 1);
const summary = { id: 'c', title: 'Say hello', created_at: '2026-11-23T19:05:00Z', updated_at: '2026-11-23T19:05:00Z', pinned: false, archived: false, active_leaf_id: OLD, locale: null, actor: null, project_id: null, message_count: 2, waits_for_person: false };

function detail(answer: StoredMessage, answers: string[]): ConversationDetail {
  return {
    conversation: summary,
    messages: [question, answer],
    siblings: answers.length > 1 ? { [answer.id]: answers } : {},
    off_branch: answers.filter((id) => id !== answer.id),
  };
}

/** The recorded run again as a new one: other ids, seqs after the stored ones, another text. */
function rerun(newMessageId: string): string {
  return textStream
    .replaceAll(OLD, newMessageId)
    .replaceAll('01a209cc-73ed-711f-aaa0-f7d6bba27f79', 'run-again')
    .replace(/"seq":(\d+)/g, (_, n: string) => `"seq":${Number(n) + 100}`)
    .replace(/^id: (\d+)$/gm, (_, n: string) => `id: ${Number(n) + 100}`)
    .replace('"delta":"Hello "', '"delta":"Fresh "');
}

describe('message versions in the chat', () => {
  beforeEach(() => {
    setBrowserLanguages('en-US', 'en');
    localStorage.setItem('tessera.conversation', 'c');
  });

  it('shows the version on the branch, switches to another, regenerates the last answer and resends an edit', async () => {
    let shown = detail(second, [OLD, 'a2']);
    const { client, requests } = fakeEngine({
      'GET /v1/conversations': () => Response.json({ conversations: [summary] }),
      'GET /v1/conversations/c': () => Response.json(shown),
      'GET /v1/interactions': () => Response.json({ interactions: [] }),
      // The stored events: the first answer's run (now off the branch), then nothing new.
      'GET /v1/conversations/c/events': (r) => (r.headers['Last-Event-ID'] ? openStream() : sseFrom(textStream, 'c')),
      'POST /v1/conversations/c/branch': () => {
        shown = detail(first, [OLD, 'a2']);
        return Response.json(shown);
      },
      'POST /v1/conversations/c/regenerate': () => {
        shown = detail(message('a3', 'assistant', 'Fresh **world**', 'q', 1), [OLD, 'a2', 'a3']);
        return sseFrom(rerun('a3'), 'c', { 'x-tessera-run-id': 'run-again' });
      },
      'POST /v1/messages': () => new Response('{}', { status: 503 }),
    });
    const { user } = renderApp({ client });
    const log = screen.getByRole('log', { name: 'Messages' });

    // The second answer is shown; the first one's replayed events are not.
    expect(await within(log).findByText('Hi there, second try')).toBeInTheDocument();
    await waitFor(() => expect(requests.some((r) => r.path.endsWith('/events'))).toBe(true));
    expect(within(log).queryByText('world')).not.toBeInTheDocument();
    expect(within(log).getAllByTestId('assistant-message')).toHaveLength(1);
    expect(within(log).getByTestId('branch-position')).toHaveTextContent('2 / 2');
    expect(within(log).getByRole('button', { name: 'Next version' })).toBeDisabled();

    await user.click(within(log).getByRole('button', { name: 'Previous version' }));
    expect(await within(log).findByText('world')).toBeInTheDocument();
    expect(within(log).queryByText('Hi there, second try')).not.toBeInTheDocument();
    expect(within(log).getByTestId('branch-position')).toHaveTextContent('1 / 2');
    expect(requests.find((r) => r.path === '/v1/conversations/c/branch')?.body).toEqual({ message_id: OLD });

    // Regenerate the answer shown: the new one streams in its place, then is one of three.
    await user.click(within(log).getByRole('button', { name: 'Regenerate' }));
    expect(requests.find((r) => r.path === '/v1/conversations/c/regenerate')?.body).toEqual({ message_id: OLD });
    expect(await within(log).findByText(/Fresh/)).toBeInTheDocument();
    await waitFor(() => expect(within(log).getByTestId('branch-position')).toHaveTextContent('3 / 3'));
    expect(within(log).getAllByTestId('assistant-message')).toHaveLength(1);

    // Edit the question: Escape gives it back unchanged, Enter resends it as a new first message.
    await user.click(within(log).getByRole('button', { name: 'Edit' }));
    const field = within(log).getByRole('textbox', { name: 'Edit your message' });
    expect(field).toHaveFocus();
    await user.keyboard('{Escape}');
    expect(within(log).queryByRole('textbox', { name: 'Edit your message' })).not.toBeInTheDocument();
    await user.click(within(log).getByRole('button', { name: 'Edit' }));
    await user.clear(within(log).getByRole('textbox', { name: 'Edit your message' }));
    await user.keyboard('Say goodbye{Enter}');
    // The web tools are announced first (CLIENT_CAPABILITIES), then the edited message goes.
    const isResend = (r: (typeof requests)[number]) =>
      r.method === 'POST' && r.path === '/v1/messages' && (r.body as { type?: string } | undefined)?.type === 'USER_INPUT';
    await waitFor(() => expect(requests.some(isResend)).toBe(true));
    const resent = requests.find(isResend);
    expect(resent?.body).toMatchObject({ type: 'USER_INPUT', contextId: 'c', content: { text: 'Say goodbye' }, metadata: { parentMessageId: null } });
  });

  it('marks where CLEAR_HISTORY cut what the model reads, keeping the messages', async () => {
    const cleared = { ...question, message: { ...question.message, context_cleared: { version: 1, at: '2026-11-23T19:06:00Z' } } } as StoredMessage;
    const answer = { ...second, message: { ...second.message, context_cleared: { version: 1, at: '2026-11-23T19:06:00Z' } } } as StoredMessage;
    const later = message('q2', 'user', 'And now?', 'a2', 2);
    const { client } = fakeEngine({
      'GET /v1/conversations': () => Response.json({ conversations: [summary] }),
      'GET /v1/conversations/c': () => Response.json({ ...detail(answer, ['a2']), messages: [cleared, answer, later] }),
      'GET /v1/interactions': () => Response.json({ interactions: [] }),
      'GET /v1/conversations/c/events': () => openStream(),
    });
    renderApp({ client });
    const log = screen.getByRole('log', { name: 'Messages' });
    const rule = await within(log).findByTestId('history-cleared');
    expect(rule).toHaveTextContent('the model no longer reads them');
    expect(within(log).getByText('Hi there, second try')).toBeInTheDocument();
    // The rule sits between the cleared answer and the message after it.
    const text = log.textContent ?? '';
    expect(text.indexOf('Hi there, second try')).toBeLessThan(text.indexOf('History cleared'));
    expect(text.indexOf('History cleared')).toBeLessThan(text.indexOf('And now?'));
  });
});
