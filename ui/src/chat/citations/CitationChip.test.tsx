import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { I18nextProvider } from 'react-i18next';
import { describe, expect, it } from 'vitest';
import type { RunContext } from '../../generated/RunContext';
import type { Explanation } from '../../generated/Explanation';
import { createI18n } from '../../i18n';
import { InspectorProvider } from '../../inspector/ContextInspector';
import { fakeEngine } from '../../test/fakeEngine';
import type { AssistantMessage, RunInfo } from '../reducer';
import { AssistantMessageView } from '../components/AssistantMessageView';
import { UserMessage } from '../components/UserMessage';

const PLAN = '/home/a/项目 笔记/plan.md';

function context(runId: string): RunContext {
  return {
    run_id: runId,
    conversation_id: 'c1',
    message_id: 'm1',
    turns: [
      {
        turn_id: 't1',
        message_id: null,
        provider: 'p',
        model: 'm',
        started_at: '2026-01-01T00:00:00Z',
        finished_at: null,
        assembly: { evidences: [{ evidence_id: 'kn-plan', block_id: 'b1', rendered: true }] } as unknown as Explanation,
      },
    ],
    blocks: [],
    evidences: [
      {
        evidence_id: 'kn-plan',
        type: 'rag_doc',
        source: { kind: 'rag', name: 'knowledge', uri: 'file:///x#L10-13', path: PLAN, lines: '10-13' } as RunContext['evidences'][number]['source'],
        content: 'Goals\nShip the needle on Friday.\nTest on Thursday.\nRelax.',
        metadata: { project: 'Atlas', score: 4.5, citation: `${PLAN}:10-13` },
      },
    ],
    cited: [],
  };
}

const TEXT = `We ship on Friday [${PLAN}:11-12] and bake a cake [/home/a/never/sent.md:3]. Also \`[${PLAN}:11]\` stays code.`;

function show(runId: string, run: RunInfo, language: 'en' | 'zh-CN' = 'en') {
  const { client, requests } = fakeEngine({ [`GET /v1/runs/${runId}/context`]: () => Response.json(context(runId)) });
  const message: AssistantMessage = { id: 'm1', runId, parts: [{ kind: 'text', key: 't', text: TEXT }], notices: [] };
  const user = userEvent.setup();
  const view = render(
    <I18nextProvider i18n={createI18n(language)}>
      <InspectorProvider client={client}>
        <AssistantMessageView message={message} tools={{}} run={run} />
      </InspectorProvider>
    </I18nextProvider>,
  );
  return { requests, user, view };
}

const done = (id: string): RunInfo => ({ id, messageId: 'm1', state: 'completed', done: true });

describe('citation chips in an answer', () => {
  it('shows a citation given to the run as verified and another as unverified, asking the engine once', async () => {
    const { requests } = show('run-chips', done('run-chips'));
    const verified = await screen.findByRole('button', { name: 'Citation of plan.md, lines 11-12: Among the passages the model was given' });
    expect(verified).toHaveAttribute('data-state', 'verified');
    expect(verified).toHaveTextContent('plan.md:11-12');
    expect(verified.title).toContain(PLAN);
    const unverified = screen.getByRole('button', { name: 'Citation of sent.md, line 3: Not among the passages the model was given' });
    expect(unverified).toHaveAttribute('data-state', 'unverified');
    expect(unverified.title).toContain('Not among the passages the model was given');
    // The citation in code stays code.
    expect(screen.getAllByTestId('citation-chip')).toHaveLength(2);
    expect(screen.getByText(`[${PLAN}:11]`).tagName).toBe('CODE');
    expect(requests.filter((r) => r.path === '/v1/runs/run-chips/context')).toHaveLength(1);
  });

  it('opens the passage from the keyboard, the cited lines marked; Escape gives the focus back', async () => {
    const { user } = show('run-pane', done('run-pane'));
    const chip = await screen.findByRole('button', { name: /^Citation of plan\.md, lines 11-12: Among/ });
    chip.focus();
    await user.keyboard('{Enter}');
    const pane = screen.getByRole('dialog', { name: 'Cited passage' });
    expect(within(pane).getByTestId('citation-path')).toHaveTextContent(PLAN);
    expect(within(pane).getByTestId('citation-where')).toHaveTextContent('lines 11-12');
    expect(pane).toHaveTextContent('Atlas');
    expect(pane).toHaveTextContent('Score4.5');
    const marked = [...pane.querySelectorAll('mark')].map((m) => m.textContent);
    expect(marked).toEqual(['Ship the needle on Friday.', 'Test on Thursday.']);
    expect(pane.querySelector('[data-line="10"]')).toHaveTextContent('Goals');
    expect(within(pane).getByRole('button', { name: 'Copy path' })).toBeInTheDocument();
    // No way to open a file in a browser.
    expect(within(pane).queryByRole('button', { name: 'Open in its app' })).toBeNull();
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(chip).toHaveFocus();

    // Space opens it too.
    await user.keyboard(' ');
    expect(screen.getByRole('dialog', { name: 'Cited passage' })).toBeInTheDocument();
  });

  it('an unverified chip says so in its pane, with no passage', async () => {
    const { user } = show('run-unverified', done('run-unverified'));
    await user.click(await screen.findByRole('button', { name: /^Citation of sent\.md, line 3: Not among/ }));
    const pane = screen.getByRole('dialog', { name: 'Cited passage' });
    expect(within(pane).getByTestId('citation-notice')).toHaveTextContent('The model was not given this passage');
    expect(within(pane).queryByTestId('citation-passage')).toBeNull();
  });

  it('waits for the run to end before asking', () => {
    const { requests } = show('run-live', { id: 'run-live', messageId: 'm1', state: 'running', done: false });
    const chips = screen.getAllByTestId('citation-chip');
    expect(chips.map((c) => c.dataset.state)).toEqual(['checking', 'checking']);
    expect(requests).toHaveLength(0);
  });

  it('speaks Chinese', async () => {
    show('run-zh', done('run-zh'), 'zh-CN');
    const chip = await screen.findByRole('button', { name: '引用 plan.md，第 11-12 行：属于提供给模型的段落' });
    expect(chip).toHaveAttribute('data-state', 'verified');
    expect(screen.getByRole('button', { name: '引用 sent.md，第 3 行：不在提供给模型的段落之中' })).toHaveAttribute('data-state', 'unverified');
  });

  it('never makes chips of the person’s own message', () => {
    render(
      <I18nextProvider i18n={createI18n('en')}>
        <UserMessage text={TEXT} />
      </I18nextProvider>,
    );
    expect(screen.queryByTestId('citation-chip')).toBeNull();
    expect(screen.getByText(/We ship on Friday/)).toHaveTextContent(`[${PLAN}:11-12]`);
  });
});
