import { screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeEngine } from '../test/fakeEngine';
import { renderApp, setBrowserLanguages } from '../test/render';

function engine() {
  return fakeEngine({
    'GET /v1/conversations': () => Response.json({ conversations: [] }),
    'GET /v1/settings': () => Response.json({ settings: { spending_limit_per_day_usd: 5 }, spent_today_usd: 0.5 }),
    'GET /v1/providers': () =>
      Response.json({ providers: [{ name: 'local', kind: 'openai', has_key: true }], default: 'local', keyring_error: null, model: { ready: true } }),
  });
}

describe('copy diagnostics', () => {
  beforeEach(() => setBrowserLanguages('en-US', 'en'));

  it('copies settings and providers to the clipboard and shows what was copied', async () => {
    const { user } = renderApp({ client: engine().client });
    // After render: user-event puts a clipboard of its own in place.
    const writeText = vi.fn((_text: string) => Promise.resolve());
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    await user.click(screen.getByRole('button', { name: 'Open settings' }));
    await user.click(await screen.findByRole('button', { name: 'Copy diagnostics' }));
    await screen.findByText('Copied to the clipboard.');
    const copied = JSON.parse(writeText.mock.calls[0]?.[0] ?? '') as Record<string, unknown>;
    expect(copied['settings']).toEqual({ settings: { spending_limit_per_day_usd: 5 }, spent_today_usd: 0.5 });
    expect(JSON.stringify(copied['providers'])).toContain('"has_key":true');
    expect(screen.getByRole<HTMLTextAreaElement>('textbox', { name: 'Diagnostics' }).value).toContain('spent_today_usd');
  });

  it('without clipboard access the report is still shown to copy by hand', async () => {
    const { user } = renderApp({ client: engine().client });
    Object.defineProperty(navigator, 'clipboard', { value: { writeText: () => Promise.reject(new Error('denied')) }, configurable: true });
    await user.click(screen.getByRole('button', { name: 'Open settings' }));
    await user.click(await screen.findByRole('button', { name: 'Copy diagnostics' }));
    await waitFor(() => expect(screen.getByRole<HTMLTextAreaElement>('textbox', { name: 'Diagnostics' }).value).toContain('Tessera'));
    expect(screen.queryByText('Copied to the clipboard.')).toBeNull();
  });
});
