import { render, screen } from '@testing-library/react';
import { I18nextProvider } from 'react-i18next';
import { describe, expect, it } from 'vitest';
import { createI18n } from '../../i18n';
import { UserMessage } from './UserMessage';

describe('a message that was not sent', () => {
  it('past the model’s window: said in the UI language, the engine’s figures kept as the detail', () => {
    const figures = 'the message needs ~300000 tokens; the model’s window is 128000 tokens, 4096 of them kept for the answer (model m)';
    for (const [lang, said] of [
      ['en', 'longer than the model can read at once'],
      ['zh-CN', '超出了模型一次能读的上限'],
    ] as const) {
      const { unmount } = render(
        <I18nextProvider i18n={createI18n(lang)}>
          <UserMessage text="…" error={figures} errorCode="MESSAGE_TOO_LONG" />
        </I18nextProvider>,
      );
      expect(screen.getByRole('alert')).toHaveTextContent(said);
      expect(screen.getByTestId('engine-detail')).toHaveTextContent('128000 tokens');
      unmount();
    }
  });
});
