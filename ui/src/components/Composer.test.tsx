import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createRef, useState } from 'react';
import { I18nextProvider } from 'react-i18next';
import { describe, expect, it, vi } from 'vitest';
import type { FormRequestPayload } from '../generated/FormRequestPayload';
import { FormCard } from '../chat/forms/FormCard';
import { createI18n } from '../i18n';
import { Composer } from './Composer';

const TRIP: FormRequestPayload = {
  form_id: 'f1',
  title: 'Your trip',
  requester: { kind: 'agent', name: 'Assistant' },
  schema: { type: 'object', properties: { city: { type: 'string', title: 'City' } } },
};

/** The composer of a run that is answering, with the form it waits on (if any) above it. */
function renderRun({ waiting, language = 'en' }: { waiting: boolean; language?: 'en' | 'zh-CN' }) {
  const onStop = vi.fn();
  const onSend = vi.fn();
  const user = userEvent.setup();
  function Page() {
    const [draft, setDraft] = useState('');
    return (
      <>
        {waiting && <FormCard request={TRIP} onAnswer={() => Promise.resolve()} />}
        <Composer draft={draft} onDraftChange={setDraft} connection="connected" onSend={onSend} running waiting={waiting} onStop={onStop} inputRef={createRef()} />
      </>
    );
  }
  render(
    <I18nextProvider i18n={createI18n(language)}>
      <Page />
    </I18nextProvider>,
  );
  return { onStop, onSend, user };
}

describe('stopping a run', () => {
  it('Esc pressed while typing in a waiting form belongs to the form: the run goes on and the typed text stays', async () => {
    const { onStop, user } = renderRun({ waiting: true });
    const city = screen.getByRole('textbox', { name: 'City' });
    await user.type(city, 'Oslo');
    await user.keyboard('{Escape}');
    expect(onStop).not.toHaveBeenCalled();
    expect(screen.queryByRole('group', { name: /Stop the run/ })).not.toBeInTheDocument();
    expect(city).toHaveValue('Oslo');
    expect(city).toHaveFocus();
  });

  it('Esc elsewhere while a form waits asks first, in place, saying the form will be cancelled; Esc keeps the form', async () => {
    const { onStop, user } = renderRun({ waiting: true });
    const message = screen.getByRole('textbox', { name: 'Message' });
    await user.click(message);
    await user.keyboard('{Escape}');
    const question = screen.getByRole('group', { name: 'Stop the run? The form waiting for your answer will be cancelled.' });
    expect(onStop).not.toHaveBeenCalled();
    // The keyboard lands on the answer.
    expect(screen.getByRole('button', { name: 'Stop and cancel the form' })).toHaveFocus();
    await user.keyboard('{Escape}');
    expect(question).not.toBeInTheDocument();
    expect(onStop).not.toHaveBeenCalled();
    await waitFor(() => expect(message).toHaveFocus());
    expect(screen.getByRole('form', { name: 'Your trip' })).toBeInTheDocument();
  });

  it('Stop while a form waits asks first; "Keep the form" keeps it, "Stop and cancel the form" stops', async () => {
    const { onStop, user } = renderRun({ waiting: true });
    await user.click(screen.getByRole('button', { name: 'Stop' }));
    expect(onStop).not.toHaveBeenCalled();
    await user.click(screen.getByRole('button', { name: 'Keep the form' }));
    expect(screen.queryByRole('button', { name: 'Stop and cancel the form' })).not.toBeInTheDocument();
    expect(onStop).not.toHaveBeenCalled();
    await user.click(screen.getByRole('button', { name: 'Stop' }));
    await user.click(screen.getByRole('button', { name: 'Stop and cancel the form' }));
    expect(onStop).toHaveBeenCalledTimes(1);
  });

  it('a run that waits for nobody stops at once, by Esc or by Stop', async () => {
    const { onStop, user } = renderRun({ waiting: false });
    await user.keyboard('{Escape}');
    expect(onStop).toHaveBeenCalledTimes(1);
    await user.click(screen.getByRole('button', { name: 'Stop' }));
    expect(onStop).toHaveBeenCalledTimes(2);
    expect(screen.queryByRole('group', { name: /Stop the run/ })).not.toBeInTheDocument();
  });

  it('asks in Chinese too', async () => {
    const { onStop, user } = renderRun({ waiting: true, language: 'zh-CN' });
    await user.click(screen.getByRole('button', { name: '停止' }));
    expect(screen.getByRole('group', { name: '停止运行？正在等待你填写的表单将被取消。' })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: '停止并取消表单' }));
    expect(onStop).toHaveBeenCalledTimes(1);
  });
});

describe('while a form waits', () => {
  it('the composer says why Enter and Send do nothing', async () => {
    const { onSend, user } = renderRun({ waiting: true });
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'Book it{Enter}');
    expect(onSend).not.toHaveBeenCalled();
    expect(screen.getByRole('button', { name: 'Send' })).toBeDisabled();
    const status = screen.getByRole('status');
    expect(status).toHaveTextContent('Waiting for your answer above: answer it first, or Stop.');
    expect(screen.getByRole('button', { name: 'Send' })).toHaveAccessibleDescription('Waiting for your answer above: answer it first, or Stop.');
  });
});
