import { render } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { I18nextProvider } from 'react-i18next';
import { vi } from 'vitest';
import { App, type AppProps } from '../App';
import { createI18n } from '../i18n';

/** Makes the browser report these preferred languages (first one is `navigator.language`). */
export function setBrowserLanguages(...languages: string[]) {
  vi.spyOn(navigator, 'language', 'get').mockReturnValue(languages[0] ?? '');
  vi.spyOn(navigator, 'languages', 'get').mockReturnValue(languages);
}

/** Starts the app the way main.tsx does: language detected from the browser and storage. */
export function renderApp(props: AppProps = {}) {
  const i18n = createI18n();
  const user = userEvent.setup();
  const result = render(
    <I18nextProvider i18n={i18n}>
      <App {...props} />
    </I18nextProvider>,
  );
  return { ...result, i18n, user };
}
