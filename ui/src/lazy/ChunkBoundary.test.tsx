import { render, screen } from '@testing-library/react';
import { lazy, type ReactElement } from 'react';
import { I18nextProvider } from 'react-i18next';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createI18n } from '../i18n';
import { setBrowserLanguages } from '../test/render';
import { LazyPart } from './ChunkBoundary';

function renderPart(load: () => Promise<{ default: () => ReactElement }>, quiet = false) {
  const Part = lazy(load);
  return render(
    <I18nextProvider i18n={createI18n()}>
      <LazyPart quiet={quiet}>
        <Part />
      </LazyPart>
    </I18nextProvider>,
  );
}

describe('a part of the UI loaded on demand', () => {
  beforeEach(() => setBrowserLanguages('en-US', 'en'));

  it('says it is loading, then shows the part', async () => {
    let arrive: (part: { default: () => ReactElement }) => void = () => undefined;
    renderPart(() => new Promise((resolve) => (arrive = resolve)));
    expect(screen.getByRole('status')).toHaveTextContent('Loading…');
    arrive({ default: () => <p>the settings</p> });
    expect(await screen.findByText('the settings')).toBeInTheDocument();
    expect(screen.queryByRole('status')).toBeNull();
  });

  it('that cannot be loaded says so and offers a reload, in the person’s language', async () => {
    setBrowserLanguages('zh-CN', 'zh');
    // React reports the caught error on the console; the boundary is what this test is about.
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    renderPart(() => Promise.reject(new Error('Failed to fetch dynamically imported module')), true);
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Tessera 的这一部分无法加载。');
    expect(alert).toHaveTextContent('Failed to fetch dynamically imported module');
    expect(screen.getByRole('button', { name: '重新加载' })).toBeInTheDocument();
  });
});
