import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { I18nextProvider } from 'react-i18next';
import { describe, expect, it } from 'vitest';
import type { RunContext } from '../generated/RunContext';
import { createI18n } from '../i18n';
import { fakeEngine } from '../test/fakeEngine';
import { ContextButton, InspectorProvider } from './ContextInspector';
import type { Explanation } from './explanation';

const EXPLANATION: Explanation = {
  version: 1,
  session_id: 'c1',
  model: 'm',
  encoding: 'cl100k_base',
  encoding_exact: false,
  now: '2026-11-24T10:00:00Z',
  budget: { window: 128000, reserved: 8000, available: 120000, used: 450, must: 120, history_cap: 60000, history_used: 300, per_item_overhead: 4, priming_overhead: 3 },
  history: { threshold_tokens: 60000, messages: 3 },
  summary: { status: 'not_needed' },
  blocks: [
    { block_id: 'blk_memory', block_type: 'memory', priority: 'high', position: 0, tokens: 40, why: 'priority', rendered_from: 'content' },
    { block_id: 'blk_search', block_type: 'evidence', priority: 'medium', position: 2, tokens: 60, why: 'priority', rendered_from: 'refs' },
  ],
  messages: [
    { index: 0, role: 'system', tokens: 47, why: 'system' },
    { index: 2, role: 'user', tokens: 300, why: 'latest', refs: [{ evidence_id: 'ev_said' }] },
  ],
  evidences: [{ evidence_id: 'ev_hit', block_id: 'blk_search', rendered: true, tokens: 56 }],
  dropped_blocks: [
    { block_id: 'blk_weather', block_type: 'evidence', priority: 'low', position: 1, reason: 'expired', expires_at: '2020-01-01T00:00:00Z' },
    { block_id: 'blk_big', block_type: 'evidence', priority: 'low', position: 3, reason: 'budget', tokens: 90000 },
  ],
  dropped_messages: [{ from: 1, to: 1, reason: 'budget', tokens: 700 }],
  conflicts: [{ kept: 'ev_new', superseded: 'ev_old', source: 'rag:wiki:https://wiki/renew', rule: 'older_version', version_field: 'metadata.version', kept_version: '2.10', superseded_version: '2.1' }],
};

const CONTEXT: RunContext = {
  run_id: 'run-1',
  conversation_id: 'c1',
  message_id: 'a1',
  turns: [{ turn_id: 't1', message_id: null, provider: 'local', model: 'm', started_at: '2026-11-24T10:00:00Z', finished_at: '2026-11-24T10:00:01Z', assembly: EXPLANATION }],
  blocks: [
    { block_id: 'blk_search', block_type: 'evidence', priority: 'medium', refs: [{ evidence_id: 'ev_hit' }] },
    { block_id: 'blk_weather', block_type: 'evidence', priority: 'low', refs: [{ evidence_id: 'ev_weather' }] },
  ],
  evidences: [
    {
      evidence_id: 'ev_hit',
      type: 'rag_doc',
      source: { kind: 'rag', name: 'search_context' },
      metadata: { citation: '/home/a/notes/plan.md:5-7', score: 0.0327, matched_by: ['lexical', 'vector'], rule: 'matches_message' },
    },
    { evidence_id: 'ev_weather', type: 'tool_result', source: { kind: 'tool', name: 'weather_lookup' } },
    { evidence_id: 'ev_said', type: 'user_input', source: { kind: 'user', name: 'message' } },
  ],
  cited: ['ev_hit'],
};

function renderButton(answer: () => Response, language: 'en' | 'zh-CN' = 'en') {
  const { client, requests } = fakeEngine({ 'GET /v1/runs/run-1/context': answer });
  const user = userEvent.setup();
  render(
    <I18nextProvider i18n={createI18n(language)}>
      <InspectorProvider client={client}>
        <ContextButton runId="run-1" />
      </InspectorProvider>
    </I18nextProvider>,
  );
  return { user, requests };
}

describe('context inspector', () => {
  it('opens from the keyboard and draws the budget with its numbers in text', async () => {
    const { user } = renderButton(() => Response.json(CONTEXT));
    const button = screen.getByRole('button', { name: 'Context: what this answer was built from' });
    button.focus();
    await user.keyboard('{Enter}');
    const dialog = await screen.findByRole('dialog', { name: 'What this answer was built from' });
    const budget = await within(dialog).findByRole('figure', { name: 'Token budget: a window of 128,000 tokens' });
    expect(within(budget).getByTestId('budget-system')).toHaveTextContent('System50 tokens');
    expect(within(budget).getByTestId('budget-blocks')).toHaveTextContent('Blocks40 tokens');
    expect(within(budget).getByTestId('budget-evidences')).toHaveTextContent('Evidence60 tokens');
    expect(within(budget).getByTestId('budget-history')).toHaveTextContent('Conversation300 tokens');
    expect(within(budget).getByTestId('budget-reserved')).toHaveTextContent('Kept for the answer8,000 tokens');
    expect(within(budget).getByTestId('budget-free')).toHaveTextContent('Free119,550 tokens');
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(button).toHaveFocus();
  });

  it('counts the system prompt as it was sent and shows the tool declarations on a line of their own', async () => {
    const sent: Explanation = { ...EXPLANATION, budget: { ...EXPLANATION.budget, used: 450 + 59 + 1200, must: 120 + 59 + 1200, system_prompt: 59, tools: 1200 } };
    const { user } = renderButton(() => Response.json({ ...CONTEXT, turns: [{ ...CONTEXT.turns[0]!, assembly: sent }] }));
    await user.click(screen.getByRole('button', { name: 'Context: what this answer was built from' }));
    const budget = await within(await screen.findByRole('dialog')).findByRole('figure', { name: 'Token budget: a window of 128,000 tokens' });
    // The system prompt (59), the system message (47) and the reply primer (3).
    expect(within(budget).getByTestId('budget-system')).toHaveTextContent('System109 tokens');
    expect(within(budget).getByTestId('budget-tools')).toHaveTextContent('Tool declarations1,200 tokens');
    expect(within(budget).getByTestId('budget-free')).toHaveTextContent('Free118,291 tokens');
  });

  it('lists what was used with its sources, cited ones marked, and what was trimmed and why', async () => {
    const { user } = renderButton(() => Response.json(CONTEXT));
    await user.click(screen.getByRole('button', { name: 'Context: what this answer was built from' }));
    const dialog = await screen.findByRole('dialog');
    const used = await within(dialog).findByRole('region', { name: 'Blocks used' });
    expect(within(used).getAllByTestId('used-block').map((li) => li.querySelector('code')?.textContent)).toEqual(['blk_memory', 'blk_search']);
    const evidences = within(dialog).getByRole('region', { name: 'Evidence used' });
    const hit = within(evidences).getByTestId('used-evidence');
    expect(hit).toHaveTextContent('ev_hit');
    expect(hit).toHaveTextContent('document passage from a document search · search_context');
    expect(hit).toHaveTextContent('cited in the answer');
    // A passage of a project's files says where it is, its score, what found it and why it was sent.
    expect(within(hit).getByTestId('inspector-passage')).toHaveTextContent(
      '/home/a/notes/plan.md:5-7 · score 0.0327 (words and meaning) · retrieved for the message',
    );
    const trimmed = within(dialog).getByRole('region', { name: 'Left out' });
    const [weather, big] = within(trimmed).getAllByTestId('trimmed-block');
    expect(weather).toHaveTextContent('blk_weather');
    expect(weather).toHaveTextContent('expired');
    expect(weather).toHaveTextContent('ev_weather tool result from a tool · weather_lookup');
    expect(weather).not.toHaveTextContent('cited');
    expect(big).toHaveTextContent('did not fit in the budget');
    expect(big).toHaveTextContent('90,000 tokens');
    const messages = within(dialog).getByRole('region', { name: 'Messages' });
    expect(within(messages).getByTestId('citing-message')).toHaveTextContent('Message 3 (user) draws on:ev_said your message from you · message');
    expect(within(trimmed).getByTestId('trimmed-messages')).toHaveTextContent('Message 2 · did not fit in the budget · 700 tokens');
    // Seed 004 冲突决策: which evidence was kept, and why.
    const conflicts = within(dialog).getByRole('region', { name: 'Conflicting evidence' });
    expect(conflicts).toHaveTextContent('Kept ev_new over ev_old · older version (metadata.version 2.10 over 2.1)');
  });

  it('says when its figures are byte lengths, not counted tokens', async () => {
    const bounded: RunContext = { ...CONTEXT, turns: CONTEXT.turns.map((turn) => ({ ...turn, assembly: { ...EXPLANATION, byte_bounds: true } })) };
    const { user } = renderButton(() => Response.json(bounded));
    await user.click(screen.getByRole('button', { name: 'Context: what this answer was built from' }));
    const dialog = await screen.findByRole('dialog');
    expect(await within(dialog).findByText(/each figure is a length in bytes/)).toHaveTextContent(
      'at most these tokens: each figure is a length in bytes (the conversation fit whole, so it was not counted with cl100k_base)',
    );
  });

  it('says when the context cannot be loaded', async () => {
    const { user } = renderButton(() => Response.json({ type: 'ERROR_RESPONSE', content: { errorCode: 'NOT_FOUND', message: 'no model call' } }, { status: 404 }));
    await user.click(screen.getByRole('button', { name: 'Context: what this answer was built from' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Could not load the context: no model call (NOT_FOUND)');
  });

  it('speaks Chinese', async () => {
    const { user } = renderButton(() => Response.json(CONTEXT), 'zh-CN');
    await user.click(screen.getByRole('button', { name: '上下文：这条回答依据了什么' }));
    const trimmed = await screen.findByRole('region', { name: '被裁剪的内容' });
    expect(within(trimmed).getAllByTestId('trimmed-block')[0]).toHaveTextContent('已过期');
  });
});
