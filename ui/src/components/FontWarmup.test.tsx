import { act, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FONT_WARMUP_STAGES, FontWarmup } from './FontWarmup';

describe('FontWarmup', () => {
  afterEach(() => vi.useRealTimers());

  it('lays its samples out after start-up, one stage per task, hidden from assistive technology', () => {
    vi.useFakeTimers();
    const view = render(<FontWarmup />);
    expect(view.container.innerHTML).toBe('');
    act(() => {
      vi.advanceTimersByTime(300);
    });
    const sample = view.getByTestId('font-warmup');
    expect(sample.dataset['stage']).toBe('1');
    const firstStage = sample.innerHTML;
    // The first stage is what sending a message needs first: the selected conversation's title.
    expect(sample.querySelector('.conversation-item[aria-current="page"]')).not.toBeNull();
    expect(sample.querySelector('pre code')).toBeNull();

    act(() => {
      vi.advanceTimersByTime(100);
    });
    expect(sample.dataset['stage']).toBe('2');
    // Earlier stages stay as they are: only the new one is laid out.
    expect(sample.innerHTML.startsWith(firstStage)).toBe(true);

    for (let i = 2; i < FONT_WARMUP_STAGES + 2; i++) {
      act(() => {
        vi.advanceTimersByTime(100);
      });
    }
    expect(sample.dataset['stage']).toBe(String(FONT_WARMUP_STAGES));
    // The conversation's labels, the copy button, highlighted code and its comments, list
    // markers, every heading: each face an answer may show.
    for (const selector of ['.message-author', '.message-usage .tool-card-name', '.code-copy', 'pre code .hljs-keyword', '.hljs-comment', 'ul ul ul li', 'ol li', 'h1', 'h6', 'strong code', 'em code']) {
      expect(sample.querySelector(selector), selector).not.toBeNull();
    }
    expect(sample.getAttribute('aria-hidden')).toBe('true');
    expect(screen.queryAllByRole('heading')).toHaveLength(0);
    expect(screen.queryAllByRole('table')).toHaveLength(0);
    expect(screen.queryAllByRole('button')).toHaveLength(0);
    // Never reachable from the keyboard.
    for (const button of sample.querySelectorAll('button')) expect(button.tabIndex).toBe(-1);
  });
});
