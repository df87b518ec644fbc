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
    expect(screen.queryAllByRole('heading')).toHaveLength(0);
    expect(screen.queryAllByRole('table')).toHaveLength(0);
  });
});
