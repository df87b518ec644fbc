import { cleanup, render, screen } from '@testing-library/react';
import { I18nextProvider } from 'react-i18next';
import { describe, expect, it } from 'vitest';
import { createI18n } from '../../i18n';
import { initialChatState, reduce } from '../reducer';
import type { Event } from '../../generated/Event';
import { ToolCardView } from './ToolCardView';

describe('a front-end call with a userPrompt', () => {
  it('shows the prompt as the agent’s words, quoted, never as the app’s', () => {
    const event = {
      protocol: 'easyflow-chat',
      version: '1.1',
      domain: 'tool',
      type: 'tool_call',
      conversation_id: 'c',
      message_id: 'm1',
      payload: { tool_call_id: 'shot', name: 'frontend_screenshot', arguments: {}, runtime: 'FRONTEND', agent_says: 'Click Always allow, the app wants it.' },
      meta: { run_id: 'r1', seq: 1 },
    } as unknown as Event;
    const state = reduce(initialChatState, event);
    const card = state.tools['shot'];
    expect(card?.agentSays).toBe('Click Always allow, the app wants it.');
    render(
      <I18nextProvider i18n={createI18n('en')}>
        <ToolCardView card={card!} tools={state.tools} />
      </I18nextProvider>,
    );
    const quote = screen.getByTestId('tool-agent-says');
    expect(quote.tagName).toBe('BLOCKQUOTE');
    expect(quote.closest('figure')).toHaveTextContent('The agent says:Click Always allow');
  });
});

/** A `request_form` call as the model makes it (a `fields` list), ended by this result. */
function formCard(result: Record<string, unknown>, language: 'en' | 'zh-CN' = 'en') {
  const args = {
    title: 'Dinner booking',
    fields: [
      { name: 'start', label: 'Arrival date', kind: 'date', required: true },
      { name: 'vegetarian', label: 'Vegetarian menu', kind: 'yes_no' },
      { name: 'table', label: 'Table', kind: 'choice', options: ['Window', 'Terrace'] },
    ],
  };
  const events = [
    { domain: 'tool', type: 'tool_call', payload: { tool_call_id: 'call_f', name: 'request_form', arguments: args } },
    { domain: 'tool', type: 'tool_result', payload: { tool_call_id: 'call_f', ...result } },
  ].map((e, i) => ({ protocol: 'easyflow-chat', version: '1.1', conversation_id: 'c', message_id: 'm1', meta: { run_id: 'r1', seq: i + 1 }, ...e }) as unknown as Event);
  const state = events.reduce(reduce, initialChatState);
  render(
    <I18nextProvider i18n={createI18n(language)}>
      <ToolCardView card={state.tools['call_f']!} tools={state.tools} />
    </I18nextProvider>,
  );
  return screen.getByTestId('tool-card');
}

describe('a form’s card', () => {
  it('is titled with the form’s title and lists the answers under the fields’ labels', () => {
    const card = formCard({ status: 'success', result: { action: 'accept', values: { start: '2026-12-01', vegetarian: true, table: 'Terrace' } } });
    expect(card).toHaveAccessibleName('Form: Dinner booking');
    expect(card).not.toHaveTextContent('request_form');
    expect(screen.getByTestId('tool-phase')).toHaveTextContent('answered');
    const summary = screen.getByTestId('form-summary');
    expect(summary).toHaveTextContent('Arrival date2026-12-01');
    expect(summary).toHaveTextContent('Vegetarian menuYes');
    expect(summary).toHaveTextContent('TableTerrace');
    expect(summary).not.toHaveTextContent('start');
    expect(summary).not.toHaveTextContent('vegetarian');
  });

  it('says declined for a declined form and cancelled for one the person cancelled, never done', () => {
    formCard({ status: 'success', result: { action: 'decline' } });
    expect(screen.getByTestId('tool-phase')).toHaveTextContent('declined');
    expect(screen.getByTestId('form-outcome')).toHaveTextContent('You declined this form.');
    cleanup();
    formCard({ status: 'success', result: { action: 'cancel' } });
    expect(screen.getByTestId('tool-phase')).toHaveTextContent('cancelled');
    expect(screen.getByTestId('form-outcome')).toHaveTextContent('You cancelled this form.');
    expect(screen.queryByText('done')).not.toBeInTheDocument();
  });

  it('cancelled by stopping the run: its title and a plain sentence, no request JSON in sight', () => {
    const card = formCard({ status: 'cancelled', error: { code: 'cancelled', message: "the person's answer never came (cancelled)" } });
    expect(card).toHaveAccessibleName('Form: Dinner booking');
    expect(screen.getByTestId('tool-phase')).toHaveTextContent('cancelled');
    expect(screen.getByTestId('form-outcome')).toHaveTextContent('Cancelled: the run was stopped before you answered.');
    expect(screen.getByTestId('tool-arguments')).not.toBeVisible();
    expect(screen.getByTestId('tool-error')).not.toBeVisible();
  });

  it('reads in Chinese', () => {
    const card = formCard({ status: 'cancelled', error: { code: 'cancelled', message: "the person's answer never came (cancelled)" } }, 'zh-CN');
    expect(card).toHaveAccessibleName('表单：Dinner booking');
    expect(screen.getByTestId('tool-phase')).toHaveTextContent('已取消');
    expect(screen.getByTestId('form-outcome')).toHaveTextContent('已取消：在你回答之前，运行已被停止。');
  });
});
