import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { I18nextProvider } from 'react-i18next';
import { describe, expect, it, vi } from 'vitest';
import type { ConsentDecision } from '../../generated/ConsentDecision';
import type { ConsentRequestPayload } from '../../generated/ConsentRequestPayload';
import { createI18n } from '../../i18n';
import { ImageInputContext } from '../../components/useImageInput';
import { PendingConsentView } from './ConsentDialog';

const REQUEST: ConsentRequestPayload = {
  consent_id: 'k1',
  tool_call_id: 'call_g',
  tool: 'test_guarded_write',
  arguments: { path: '/tmp/x', ms: 0 },
  touches: ['writes test-tool-log'],
  risk: 'high',
  agent_says: 'Ignore the app and click Always allow.',
};

function renderConsent(onDecide: (d: ConsentDecision) => Promise<void>, language: 'en' | 'zh-CN' = 'en') {
  const i18n = createI18n(language);
  const user = userEvent.setup();
  render(
    <I18nextProvider i18n={i18n}>
      <button type="button">outside</button>
      <PendingConsentView request={REQUEST} onDecide={onDecide} />
    </I18nextProvider>,
  );
  return { user };
}

describe('consent dialog', () => {
  it('is laid over the whole page, not inside the log it was opened from', () => {
    const i18n = createI18n('en');
    render(
      <I18nextProvider i18n={i18n}>
        <section role="log" aria-label="Messages">
          <PendingConsentView request={REQUEST} onDecide={vi.fn()} />
        </section>
      </I18nextProvider>,
    );
    const dialog = screen.getByRole('dialog', { name: 'Allow the tool test_guarded_write to run?' });
    expect(screen.getByRole('log', { name: 'Messages' })).not.toContainElement(dialog);
    expect(dialog.closest('.dialog-backdrop')?.parentElement).toBe(document.body);
  });

  it('shows the tool, its exact arguments, what it touches, the risk, and the agent only as a quotation', () => {
    renderConsent(vi.fn());
    const dialog = screen.getByRole('dialog', { name: 'Allow the tool test_guarded_write to run?' });
    expect(dialog).toHaveAttribute('aria-modal', 'true');
    expect(dialog).toHaveFocus();
    expect(within(dialog).getByTestId('consent-tool')).toHaveTextContent('test_guarded_write');
    expect(JSON.parse(within(dialog).getByTestId('consent-arguments').textContent ?? '')).toEqual({ path: '/tmp/x', ms: 0 });
    expect(within(dialog).getByRole('listitem')).toHaveTextContent('writes test-tool-log');
    expect(within(dialog).getByTestId('consent-risk')).toHaveTextContent('High');
    const quote = within(dialog).getByTestId('consent-agent-says');
    expect(quote.tagName).toBe('BLOCKQUOTE');
    expect(quote.closest('figure')).toHaveTextContent('The agent says:');
  });

  it.each([
    ['Allow once', 'allow_once'],
    ['Allow in this conversation', 'allow_conversation'],
    ['Always allow', 'allow_always'],
    ['Deny', 'deny'],
  ] as const)('“%s” sends %s', async (label, decision) => {
    const onDecide = vi.fn(async () => {});
    const { user } = renderConsent(onDecide);
    await user.click(screen.getByRole('button', { name: label }));
    expect(onDecide).toHaveBeenCalledExactlyOnceWith(decision);
  });

  it('keeps focus inside, and Escape closes without deciding (it can be reopened)', async () => {
    const onDecide = vi.fn(async () => {});
    const { user } = renderConsent(onDecide);
    const dialog = screen.getByRole('dialog');
    const buttons = within(dialog).getAllByRole('button');
    await user.tab();
    expect(buttons[0]).toHaveFocus();
    for (let i = 1; i < buttons.length; i++) await user.tab();
    expect(buttons.at(-1)).toHaveFocus();
    await user.tab();
    expect(buttons[0]).toHaveFocus(); // wrapped, never reaching "outside"
    await user.tab({ shift: true });
    expect(buttons.at(-1)).toHaveFocus();

    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(onDecide).not.toHaveBeenCalled();
    await user.click(screen.getByRole('button', { name: 'Review the permission request for test_guarded_write' }));
    expect(screen.getByRole('dialog')).toBeInTheDocument();
  });

  it('keeps the dialog open with the reason when the decision is not recorded', async () => {
    const { user } = renderConsent(vi.fn(async () => Promise.reject(new Error('offline'))));
    await user.click(screen.getByRole('button', { name: 'Deny' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Not sent: offline');
    expect(screen.getByRole('dialog')).toBeInTheDocument();
  });

  it('speaks Chinese', () => {
    renderConsent(vi.fn(), 'zh-CN');
    const dialog = screen.getByRole('dialog', { name: '允许运行工具 test_guarded_write？' });
    for (const name of ['允许一次', '在此会话中允许', '始终允许', '拒绝']) expect(within(dialog).getByRole('button', { name })).toBeInTheDocument();
  });
});

describe('consent dialog for a specialist', () => {
  it('names the specialist that asked, in the UI language', () => {
    for (const [language, expected] of [
      ['en', 'the specialist writer'],
      ['zh-CN', '专家 writer'],
    ] as const) {
      const i18n = createI18n(language);
      const { unmount } = render(
        <I18nextProvider i18n={i18n}>
          <PendingConsentView
            request={{ ...REQUEST, requested_by: { kind: 'specialist', name: 'writer' } }}
            onDecide={vi.fn()}
          />
        </I18nextProvider>,
      );
      expect(screen.getByTestId('consent-requested-by').textContent).toBe(expected);
      unmount();
    }
  });

  it('says nothing of who asked when it was the agent itself', () => {
    const i18n = createI18n('en');
    render(
      <I18nextProvider i18n={i18n}>
        <PendingConsentView
          request={{ ...REQUEST, requested_by: { kind: 'agent', name: 'assistant' } }}
          onDecide={vi.fn()}
        />
      </I18nextProvider>,
    );
    expect(screen.queryByTestId('consent-requested-by')).toBeNull();
  });

  it('names what the tool does, says why the risk is what it is, and has one main choice', () => {
    const i18n = createI18n('en');
    const capture: ConsentRequestPayload = {
      consent_id: 'k2',
      tool_call_id: 'call_shot',
      tool: 'screen_capture',
      arguments: { target: 'screen' },
      touches: ['reads screen'],
      risk: 'high',
      risk_reasons: [{ kind: 'reads', resource: 'screen' }],
    };
    render(
      <I18nextProvider i18n={i18n}>
        <PendingConsentView request={capture} onDecide={vi.fn()} />
      </I18nextProvider>,
    );
    const dialog = screen.getByRole('dialog', { name: 'Allow Tessera to capture your screen?' });
    expect(within(dialog).getByTestId('consent-risk')).toHaveTextContent('High');
    expect(within(dialog).getByTestId('consent-reasons')).toHaveTextContent('It sees everything on your screen, other windows included.');
    const primary = dialog.querySelectorAll('.button-primary');
    expect(primary).toHaveLength(1);
    expect(primary[0]).toHaveTextContent('Allow once');
  });

  it('says in Chinese why an MCP tool may destroy data', () => {
    const i18n = createI18n('zh-CN');
    render(
      <I18nextProvider i18n={i18n}>
        <PendingConsentView
          request={{ ...REQUEST, tool: 'gh__delete_repo', risk: 'high', risk_reasons: [{ kind: 'may_destroy', server: 'gh' }] }}
          onDecide={vi.fn()}
        />
      </I18nextProvider>,
    );
    expect(screen.getByTestId('consent-reasons')).toHaveTextContent('它的 MCP 服务器（gh）没有声明它只读取');
  });

  it('says before a screen capture that the model in use could not see it', () => {
    const capture: ConsentRequestPayload = { ...REQUEST, tool: 'screen_capture', arguments: {}, touches: ['reads screen'], risk: 'medium' };
    const draw = (takes_images: boolean) =>
      render(
        <I18nextProvider i18n={createI18n('en')}>
          <ImageInputContext value={{ provider: 'scripted', model: 'text-only-model', takes_images, source: 'guessed' }}>
            <PendingConsentView request={capture} onDecide={vi.fn()} />
          </ImageInputContext>
        </I18nextProvider>,
      );
    const blind = draw(false);
    expect(screen.getByTestId('consent-unseen').textContent).toMatch(/^text-only-model cannot see images/);
    blind.unmount();
    draw(true);
    expect(screen.queryByTestId('consent-unseen')).toBeNull();
  });
});
