import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderApp, setBrowserLanguages } from '../test/render';
import { LANGUAGE_STORAGE_KEY, detectLanguage } from '.';
import en from './locales/en';
import zhCN from './locales/zh-CN';

describe('language', () => {
  it('starts in English when the browser prefers English', () => {
    setBrowserLanguages('en-US', 'en');
    renderApp();
    expect(screen.getByRole('navigation', { name: 'Conversations' })).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent('Not connected to an engine yet');
    expect(document.documentElement.lang).toBe('en');
  });

  it('starts in Simplified Chinese when the browser prefers Chinese', () => {
    setBrowserLanguages('zh-CN', 'zh');
    renderApp();
    const nav = screen.getByRole('navigation', { name: '会话' });
    expect(within(nav).getByRole('button', { name: '新建会话' })).toBeInTheDocument();
    expect(within(nav).getByRole('searchbox', { name: '搜索会话' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 1, name: '新会话' })).toBeInTheDocument();
    expect(screen.getByRole('log', { name: '消息' })).toHaveTextContent('欢迎使用 Tessera');
    expect(screen.getByRole('textbox', { name: '消息' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: '发送' })).toBeDisabled();
    expect(screen.getByRole('status')).toHaveTextContent('尚未连接到引擎');
    expect(document.documentElement.lang).toBe('zh-CN');
  });

  it.each([
    [['zh-TW'], 'zh-CN'],
    [['zh'], 'zh-CN'],
    [['ZH-hans-CN'], 'zh-CN'],
    [['en-GB'], 'en'],
    [['fr-FR'], 'en'],
    [['fr-FR', 'zh-CN'], 'zh-CN'],
    [['de-DE', 'en-US', 'zh-CN'], 'en'],
    [[], 'en'],
  ])('maps browser languages %j to %s', (languages, expected) => {
    const nav = { language: languages[0] ?? '', languages };
    expect(detectLanguage({ navigator: nav, storage: undefined })).toBe(expected);
  });

  it('switching the language changes every text at once, and <html lang>', async () => {
    setBrowserLanguages('en-US');
    const { user } = renderApp();
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('New conversation');

    await user.selectOptions(screen.getByRole('combobox', { name: 'Language' }), '简体中文');

    expect(screen.getByRole('navigation', { name: '会话' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('新会话');
    expect(screen.getByRole('button', { name: '发送' })).toBeDisabled();
    expect(screen.getByRole('status')).toHaveTextContent('尚未连接到引擎');
    expect(screen.getByRole('combobox', { name: '语言' })).toHaveValue('zh-CN');
    expect(screen.getByRole('combobox', { name: '主题' })).toHaveDisplayValue('跟随系统');
    expect(screen.queryByText(/New conversation|Not connected/)).not.toBeInTheDocument();
    expect(document.documentElement.lang).toBe('zh-CN');
    expect(localStorage.getItem(LANGUAGE_STORAGE_KEY)).toBe('zh-CN');

    await user.selectOptions(screen.getByRole('combobox', { name: '语言' }), 'English');
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('New conversation');
    expect(document.documentElement.lang).toBe('en');
  });

  it('a saved choice wins over the browser language', () => {
    setBrowserLanguages('zh-CN');
    localStorage.setItem(LANGUAGE_STORAGE_KEY, 'en');
    renderApp();
    expect(screen.getByRole('navigation', { name: 'Conversations' })).toBeInTheDocument();
    expect(document.documentElement.lang).toBe('en');
  });

  it('ignores a saved value that is not a language it has', () => {
    setBrowserLanguages('zh-CN');
    localStorage.setItem(LANGUAGE_STORAGE_KEY, 'klingon');
    renderApp();
    expect(screen.getByRole('navigation', { name: '会话' })).toBeInTheDocument();
  });

  it('has every text in both languages', () => {
    const shape = (messages: Record<string, Record<string, string>>) =>
      Object.entries(messages).flatMap(([section, texts]) =>
        Object.entries(texts).map(([key, text]) => {
          expect(text.trim(), `${section}.${key}`).not.toBe('');
          return `${section}.${key}`;
        }),
      );
    expect(shape(zhCN).sort()).toEqual(shape(en).sort());
  });
});
