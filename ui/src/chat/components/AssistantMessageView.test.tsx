import { render, screen } from '@testing-library/react';
import { I18nextProvider } from 'react-i18next';
import { describe, expect, it } from 'vitest';
import { createI18n } from '../../i18n';
import type { AssistantMessage, RunInfo } from '../reducer';
import { AssistantMessageView } from './AssistantMessageView';

function show(message: AssistantMessage, run: RunInfo) {
  render(
    <I18nextProvider i18n={createI18n('en')}>
      <AssistantMessageView message={message} tools={{}} run={run} />
    </I18nextProvider>,
  );
}

describe('an assistant message', () => {
  it('shows its retries as one line that updates, and other notices all', () => {
    show(
      {
        id: 'm1',
        runId: 'r1',
        parts: [{ kind: 'text', key: 't', text: 'Hello' }],
        notices: [
          { code: 'rate_limited', message: 'attempt 2 of 4', retryable: true },
          { code: 'business', message: 'quota nearly used', retryable: false },
          { code: 'rate_limited', message: 'attempt 3 of 4', retryable: true },
        ],
      },
      { id: 'r1', messageId: 'm1', state: 'running', done: false },
    );
    const retries = screen.getAllByTestId('retry-notice');
    expect(retries).toHaveLength(1);
    expect(retries[0]).toHaveTextContent('Retrying: attempt 3 of 4');
    expect(screen.getByText(/quota nearly used/)).toBeInTheDocument();
    // While it streams there is nothing to copy yet.
    expect(screen.queryByTestId('copy-answer')).not.toBeInTheDocument();
  });

  it('says no more that it is retrying once the run has ended (after the final failure, or the answer)', () => {
    const retries = [
      { code: 'rate_limited', message: 'busy (retrying in 2000 ms, attempt 3)', retryable: true },
      { code: 'rate_limited', message: 'busy (retrying in 4000 ms, attempt 3)', retryable: true },
    ];
    show(
      { id: 'm6', runId: 'r6', parts: [], notices: retries },
      { id: 'r6', messageId: 'm6', state: 'failed', done: true, fatal: { code: 'rate_limited', message: 'busy', retryable: false } },
    );
    expect(screen.getByTestId('run-error')).toHaveTextContent('busy');
    expect(screen.queryByTestId('retry-notice')).toBeNull();
    expect(screen.queryByText(/Retrying/)).toBeNull();
  });

  it('offers to copy a finished answer', () => {
    show(
      { id: 'm2', runId: 'r2', parts: [{ kind: 'text', key: 't', text: '**Done**' }], notices: [] },
      { id: 'r2', messageId: 'm2', state: 'completed', done: true },
    );
    expect(screen.getByTestId('copy-answer')).toHaveTextContent('Copy answer');
  });

  it('a stopped answer shows the tokens Tessera counted, marked as estimated, never 0 in / 0 out', () => {
    show(
      { id: 'm3', runId: 'r3', parts: [{ kind: 'text', key: 't', text: 'Part' }], notices: [], usage: { promptTokens: 12, completionTokens: 3, latencyMs: 40, estimated: true } },
      { id: 'r3', messageId: 'm3', state: 'cancelled', done: true },
    );
    expect(screen.getByTestId('usage')).toHaveTextContent('≈ 12 in / 3 out tokens (estimated)');
  });

  it('a stopped run says the answer so far is kept only where there is one', () => {
    show({ id: 'm5', runId: 'r5', parts: [{ kind: 'text', key: 't', text: 'Half an answer' }], notices: [] }, { id: 'r5', messageId: 'm5', state: 'cancelled', done: true });
    expect(screen.getByTestId('run-cancelled')).toHaveTextContent('Stopped. The answer so far is kept.');
    show({ id: 'm6', runId: 'r6', parts: [], notices: [] }, { id: 'r6', messageId: 'm6', state: 'cancelled', done: true });
    expect(screen.getAllByTestId('run-cancelled')[1]).toHaveTextContent('Stopped before any answer was written.');
  });

  it('a run that reported no tokens says so', () => {
    show(
      { id: 'm4', runId: 'r4', parts: [{ kind: 'text', key: 't', text: 'Part' }], notices: [], usage: { promptTokens: 0, completionTokens: 0, latencyMs: 40 } },
      { id: 'r4', messageId: 'm4', state: 'cancelled', done: true },
    );
    expect(screen.getByTestId('usage')).toHaveTextContent('No tokens reported');
    expect(screen.getByTestId('usage')).not.toHaveTextContent('0 in / 0 out');
  });

  it('says what an engine error means in the UI language, with the engine’s words as the detail', () => {
    render(
      <I18nextProvider i18n={createI18n('zh-CN')}>
        <AssistantMessageView
          message={{ id: 'm5', runId: 'r5', parts: [], notices: [] }}
          tools={{}}
          run={{ id: 'r5', messageId: 'm5', state: 'failed', done: true, fatal: { code: 'auth_failed', message: 'HTTP 401 from openai: invalid key', retryable: false } }}
        />
      </I18nextProvider>,
    );
    const error = screen.getByTestId('run-error');
    expect(error).toHaveTextContent('服务商拒绝了 API 密钥');
    expect(screen.getByTestId('engine-detail')).toHaveTextContent('HTTP 401 from openai: invalid key (auth_failed)');
  });

  it('a run past the model’s window, or an answer too large to read, is said in the UI language', () => {
    for (const [code, said] of [
      ['context_window_exceeded', '超出了模型一次能读的上限'],
      ['decode_error', '服务商发来的回答无法读取'],
    ] as const) {
      const { unmount } = render(
        <I18nextProvider i18n={createI18n('zh-CN')}>
          <AssistantMessageView
            message={{ id: 'm7', runId: 'r7', parts: [], notices: [] }}
            tools={{}}
            run={{ id: 'r7', messageId: 'm7', state: 'failed', done: true, fatal: { code, message: 'the answer passed 16 MiB (16777216 bytes)', retryable: false } }}
          />
        </I18nextProvider>,
      );
      expect(screen.getByTestId('run-error')).toHaveTextContent(said);
      expect(screen.getByTestId('engine-detail')).toHaveTextContent('16 MiB');
      unmount();
    }
  });

  it('an error the UI does not know shows the engine’s words and code', () => {
    render(
      <I18nextProvider i18n={createI18n('en')}>
        <AssistantMessageView
          message={{ id: 'm6', runId: 'r6', parts: [], notices: [] }}
          tools={{}}
          run={{ id: 'r6', messageId: 'm6', state: 'failed', done: true, fatal: { code: 'weird', message: 'something odd', retryable: false } }}
        />
      </I18nextProvider>,
    );
    expect(screen.getByTestId('run-error')).toHaveTextContent('The run failed: something odd (weird)');
  });
});

describe('thinking', () => {
  it('shows thinking open with a running clock while the model thinks, then folds it to how long it took', () => {
    const started = Date.now() - 3_000;
    const thinking = { kind: 'thinking' as const, key: 'th', text: 'Let me see…', startedMs: started, lastMs: started + 2_000 };
    const view = render(
      <I18nextProvider i18n={createI18n('en')}>
        <AssistantMessageView message={{ id: 'm9', runId: 'r9', parts: [thinking], notices: [] }} tools={{}} run={{ id: 'r9', messageId: 'm9', state: 'running', done: false }} />
      </I18nextProvider>,
    );
    const details = screen.getByTestId('thinking');
    expect(details).toHaveAttribute('open');
    expect(screen.getByTestId('thinking-title').textContent).toMatch(/^Thinking… [34] s$/);
    expect(screen.getByText('Let me see…')).toBeVisible();

    // The answer moved on: folded, with the time from its first to its last delta.
    view.rerender(
      <I18nextProvider i18n={createI18n('en')}>
        <AssistantMessageView
          message={{ id: 'm9', runId: 'r9', parts: [thinking, { kind: 'text', key: 't', text: 'Yes.' }], notices: [] }}
          tools={{}}
          run={{ id: 'r9', messageId: 'm9', state: 'running', done: false }}
        />
      </I18nextProvider>,
    );
    expect(screen.getByTestId('thinking')).not.toHaveAttribute('open');
    expect(screen.getByTestId('thinking-title')).toHaveTextContent('Thought for 2 s');
  });

  it('says it in Chinese too, and keeps the person’s choice to open it', async () => {
    const { default: userEvent } = await import('@testing-library/user-event');
    render(
      <I18nextProvider i18n={createI18n('zh-CN')}>
        <AssistantMessageView
          message={{ id: 'm8', runId: 'r8', parts: [{ kind: 'thinking', key: 'th', text: '嗯', startedMs: 0, lastMs: 12_000 }, { kind: 'text', key: 't', text: '好' }], notices: [] }}
          tools={{}}
          run={{ id: 'r8', messageId: 'm8', state: 'completed', done: true }}
        />
      </I18nextProvider>,
    );
    expect(screen.getByTestId('thinking-title')).toHaveTextContent('思考了 12 秒');
    await userEvent.setup().click(screen.getByTestId('thinking-title'));
    expect(screen.getByTestId('thinking')).toHaveAttribute('open');
  });
});
