import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { I18nextProvider } from 'react-i18next';
import { describe, expect, it, vi } from 'vitest';
import { createI18n } from '../i18n';
import type { ProviderConfig, SettingsApi } from './api';
import { ProviderForm } from './ProviderForm';

const LAB: ProviderConfig = {
  name: 'lab',
  kind: 'openai',
  base_url: 'http://127.0.0.1:9/v1',
  models: { 'gpt-4o': { context_window: 128000 }, 'house-model': { image_input: true } },
  default_model: 'gpt-4o',
  requires_key: true,
  timeouts: { connect_ms: 10000, first_byte_ms: 120000, idle_ms: 90000 },
  retry: { max_attempts: 3, initial_backoff_ms: 500, max_backoff_ms: 8000 },
} as unknown as ProviderConfig;

async function edit(language: string, initial: ProviderConfig) {
  const i18n = createI18n();
  await i18n.changeLanguage(language);
  const saveProvider = vi.fn((config: ProviderConfig) => Promise.resolve({ name: config.name, replaced: true, config, model: { ready: true } }));
  const api = { saveProvider } as unknown as SettingsApi;
  render(
    <I18nextProvider i18n={i18n}>
      <ProviderForm api={api} initial={initial} onSaved={() => undefined} />
    </I18nextProvider>,
  );
  return { saveProvider, user: userEvent.setup() };
}

describe('Settings → Providers: whether a model takes images', () => {
  it('is guessed from the name until the person says; what they say is saved with the model, its other settings kept', async () => {
    const { saveProvider, user } = await edit('en', LAB);
    const takes = screen.getByRole('combobox', { name: /Takes images/ });
    expect(takes).toHaveValue('guess');
    expect(screen.getByRole('option', { name: 'Guess from the model’s name' })).toBeInTheDocument();
    await user.selectOptions(takes, 'No, it cannot see images');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    const saved = saveProvider.mock.calls[0]?.[0];
    expect(saved?.models).toEqual({ 'gpt-4o': { context_window: 128000, image_input: false }, 'house-model': { image_input: true } });
  });

  it('shows what was said of the model named, and back to a guess removes it', async () => {
    const { saveProvider, user } = await edit('zh-CN', { ...LAB, default_model: 'house-model' });
    const takes = screen.getByRole('combobox', { name: /能看图片/ });
    expect(takes).toHaveValue('on');
    await user.selectOptions(takes, '根据模型名称推断');
    await user.click(screen.getByRole('button', { name: '保存' }));
    expect(saveProvider.mock.calls[0]?.[0].models).toEqual({ 'gpt-4o': { context_window: 128000 } });
  });
});
