import { act, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FontWarmup } from './FontWarmup';

describe('FontWarmup', () => {
  afterEach(() => vi.useRealTimers());

  it('lays its sample out only after start-up, hidden from assistive technology', () => {
    vi.useFakeTimers();
    const view = render(<FontWarmup />);
    expect(view.container.innerHTML).toBe('');
    act(() => {
      vi.advanceTimersByTime(300);
    });
    const sample = view.getByTestId('font-warmup');
    expect(sample.getAttribute('aria-hidden')).toBe('true');
    expect(sample.querySelector('pre code')).not.toBeNull();
    // The conversation's own labels too: the first message's "You" label looked its face up.
    expect(sample.querySelector('.message-author')).not.toBeNull();
    expect(sample.querySelector('.message-usage .tool-card-name')).not.toBeNull();
    expect(screen.queryAllByRole('heading')).toHaveLength(0);
    expect(screen.queryAllByRole('table')).toHaveLength(0);
  });
});
