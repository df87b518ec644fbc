import { render, screen, within } from '@testing-library/react';
import { I18nextProvider } from 'react-i18next';
import { beforeEach, describe, expect, it } from 'vitest';
import { createI18n } from '../i18n';
import type { Event } from '../generated/Event';
import type { StoredMessage } from '../transport/client';
import { ConversationLog } from './components/ConversationLog';
import { initialChatState, reduceAll, type ChatState } from './reducer';
import { initialSessionState } from './sessionState';
import type { ChatSession } from './useChatSession';
import { forgetMeasuredRows } from './useVirtualRows';

let seq = 0;

/** The events of a run answering `question` as message `message`: it fails with `error`, or answers `text`. */
function run(id: string, message: string, question: string, end: { error: string } | { text: string }): Event[] {
  const base = { protocol: 'easyflow-chat', version: '1.1', conversation_id: 'c', message_id: message } as const;
  const meta = () => ({ run_id: id, seq: ++seq, ts: '2026-01-01T00:00:00Z' });
  const events: Event[] = [{ ...base, domain: 'system', type: 'status', payload: { state: 'running', user_message_id: question }, meta: meta() }];
  if ('error' in end) {
    events.push({ ...base, domain: 'system', type: 'error', payload: { code: 'http_400', message: end.error, retryable: false }, meta: meta() });
    events.push({ ...base, domain: 'system', type: 'status', payload: { state: 'failed' }, meta: meta() });
  } else {
    events.push({ ...base, domain: 'llm', type: 'message', index: 0, payload: { delta: end.text }, meta: meta() });
    events.push({ ...base, domain: 'system', type: 'status', payload: { state: 'completed' }, meta: meta() });
  }
  events.push({ ...base, domain: 'system', type: 'done', payload: {}, meta: meta() });
  return events;
}

function question(id: string, content: string, parent: string | null = null): StoredMessage {
  return { id, conversation_id: 'c', parent_id: parent, depth: 0, message: { role: 'user', content } };
}

function answer(id: string, content: string, parent: string): StoredMessage {
  return { id, conversation_id: 'c', parent_id: parent, depth: 1, message: { role: 'assistant', content } };
}

function show(history: StoredMessage[], chat: ChatState, offBranch: string[] = []) {
  const nothing = () => Promise.resolve();
  const session: ChatSession = {
    ...initialSessionState(true),
    history,
    chat,
    offBranch: new Set(offBranch),
    runningId: null,
    chooseModel: () => {},
    select: () => {},
    send: nothing,
    editAndResend: nothing,
    regenerate: nothing,
    resend: nothing,
    retry: nothing,
    switchBranch: nothing,
    refreshList: nothing,
    stop: nothing,
    answer: nothing,
  };
  render(
    <I18nextProvider i18n={createI18n('en')}>
      <section role="log" aria-label="Messages">
        <ConversationLog session={session} />
      </section>
    </I18nextProvider>,
  );
  const log = screen.getByRole('log');
  const messages = [...log.querySelectorAll('[data-testid="user-message"], [data-testid="assistant-message"]')];
  return { log, messages: messages.map((m) => m.textContent ?? '') };
}

describe('an answer of which nothing was kept', () => {
  beforeEach(() => forgetMeasuredRows());

  it('shows under its question with Retry while nothing answered it', () => {
    const chat = reduceAll(initialChatState, run('r1', 'm1', 'q1', { error: 'refused' }));
    const { log, messages } = show([question('q1', 'Try this')], chat);
    expect(messages).toHaveLength(2);
    expect(messages[1]).toMatch(/refused/);
    expect(within(log).getByTestId('run-error')).toBeInTheDocument();
    expect(within(log).getByRole('button', { name: 'Retry' })).toBeInTheDocument();
  });

  it('is gone once the retried answer is stored: the answer ends the log, nothing to retry', () => {
    const chat = reduceAll(initialChatState, [...run('r1', 'm1', 'q1', { error: 'refused' }), ...run('r2', 'm2', 'q1', { text: 'It worked.' })]);
    const { log, messages } = show([question('q1', 'Try this'), answer('m2', 'It worked.', 'q1')], chat);
    expect(messages).toHaveLength(2);
    expect(messages.at(-1)).toMatch(/It worked\./);
    expect(within(log).queryByTestId('run-error')).toBeNull();
    expect(within(log).queryByRole('button', { name: 'Retry' })).toBeNull();
  });

  it('retried and failed again shows the newest failure only', () => {
    const chat = reduceAll(initialChatState, [...run('r1', 'm1', 'q1', { error: 'first refusal' }), ...run('r2', 'm2', 'q1', { error: 'second refusal' })]);
    const { log } = show([question('q1', 'Try this')], chat);
    const failures = within(log).getAllByTestId('run-error');
    expect(failures).toHaveLength(1);
    expect(failures[0]).toHaveTextContent('second refusal');
    expect(within(log).getAllByRole('button', { name: 'Retry' })).toHaveLength(1);
  });

  it('is not under an edited version of its question', () => {
    const chat = reduceAll(initialChatState, [...run('r1', 'm1', 'q1', { error: 'refused' }), ...run('r2', 'm2', 'q2', { text: 'Answer to the edit.' })]);
    const { log, messages } = show([question('q2', 'Try that instead'), answer('m2', 'Answer to the edit.', 'q2')], chat, ['q1']);
    expect(messages).toHaveLength(2);
    expect(messages[0]).toMatch(/Try that instead/);
    expect(messages[1]).toMatch(/Answer to the edit\./);
    expect(within(log).queryByTestId('run-error')).toBeNull();
  });

  it('while the edit is being answered, the old failure is not shown either', () => {
    const chat = reduceAll(initialChatState, run('r1', 'm1', 'q1', { error: 'refused' }));
    // The branch cut before the question edited (useChatSession's cutHistory): nothing shown yet.
    const { log } = show([], chat, ['q1']);
    expect(within(log).queryByTestId('run-error')).toBeNull();
  });

  it('stays under its question when the person went on, without Retry (it is not the last word)', () => {
    const chat = reduceAll(initialChatState, [...run('r1', 'm1', 'q1', { error: 'refused' }), ...run('r2', 'm2', 'q2', { text: 'The second answer.' })]);
    const { log, messages } = show([question('q1', 'First'), question('q2', 'Second', 'q1'), answer('m2', 'The second answer.', 'q2')], chat);
    expect(messages).toHaveLength(4);
    expect(messages[1]).toMatch(/refused/);
    expect(messages.at(-1)).toMatch(/The second answer\./);
    expect(within(log).queryByRole('button', { name: 'Retry' })).toBeNull();
  });
});
