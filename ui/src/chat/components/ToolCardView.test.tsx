import { render, screen } from '@testing-library/react';
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
