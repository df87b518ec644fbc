import { act } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { warmUpMarkdown } from './warmUp';

describe('warmUpMarkdown', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.useRealTimers();
  });

  it('renders its samples off the page, one per task, without errors, and only once', async () => {
    vi.useFakeTimers();
    const errors = vi.spyOn(console, 'error');
    const before = document.body.innerHTML;
    warmUpMarkdown();
    warmUpMarkdown(); // a second call (the pane preloaded again) does nothing more
    expect(vi.getTimerCount()).toBe(1);
    for (let i = 0; i < 20; i++) {
      await act(async () => {
        await vi.advanceTimersByTimeAsync(50);
      });
    }
    expect(vi.getTimerCount()).toBe(0);
    expect(document.body.innerHTML).toBe(before);
    expect(errors).not.toHaveBeenCalled();
  });

  it('stops quietly when the page is gone before its last sample', async () => {
    vi.useFakeTimers();
    vi.resetModules();
    const fresh = await import('./warmUp');
    fresh.warmUpMarkdown();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(50); // the first sample is drawn
    });
    vi.stubGlobal('window', undefined); // what a test's teardown or a closing window leaves
    try {
      await vi.advanceTimersByTimeAsync(1000);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
