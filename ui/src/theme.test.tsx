import { screen } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { renderApp, setBrowserLanguages } from './test/render';
import { THEME_STORAGE_KEY } from './theme';

describe('theme', () => {
  beforeEach(() => setBrowserLanguages('en-US'));

  it('follows the system by default', () => {
    renderApp();
    expect(screen.getByRole('combobox', { name: 'Theme' })).toHaveDisplayValue('System');
    expect(document.documentElement).not.toHaveAttribute('data-theme');
  });

  it('switches to dark and light, remembers the choice, and can go back to the system', async () => {
    const { user } = renderApp();
    const select = screen.getByRole('combobox', { name: 'Theme' });

    await user.selectOptions(select, 'Dark');
    expect(document.documentElement).toHaveAttribute('data-theme', 'dark');
    expect(localStorage.getItem(THEME_STORAGE_KEY)).toBe('dark');

    await user.selectOptions(select, 'Light');
    expect(document.documentElement).toHaveAttribute('data-theme', 'light');

    await user.selectOptions(select, 'System');
    expect(document.documentElement).not.toHaveAttribute('data-theme');
    expect(localStorage.getItem(THEME_STORAGE_KEY)).toBe('system');
  });

  it('starts with the saved choice', () => {
    localStorage.setItem(THEME_STORAGE_KEY, 'dark');
    renderApp();
    expect(screen.getByRole('combobox', { name: 'Theme' })).toHaveDisplayValue('Dark');
    expect(document.documentElement).toHaveAttribute('data-theme', 'dark');
  });
});
