import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDrawPacer, DRAW_INTERVAL_MS, FRAME_FALLBACK_MS } from './drawPacer';

describe('createDrawPacer', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'requestAnimationFrame', 'cancelAnimationFrame', 'performance'] });
  });
  afterEach(() => vi.useRealTimers());

  it('draws a burst of updates once, in the next frame', () => {
    const draw = vi.fn();
    const pacer = createDrawPacer(draw);
    for (let i = 0; i < 10; i++) pacer.request();
    expect(draw).not.toHaveBeenCalled();
    vi.advanceTimersByTime(16);
    expect(draw).toHaveBeenCalledTimes(1);
  });

  it(`draws a stream of updates no more often than every ${DRAW_INTERVAL_MS} ms, and after the last one`, () => {
    const drawn: number[] = [];
    const pacer = createDrawPacer(() => drawn.push(performance.now()));
    // A delta every 2 ms for a second: 500 updates.
    for (let t = 0; t < 1000; t += 2) {
      pacer.request();
      vi.advanceTimersByTime(2);
    }
    vi.advanceTimersByTime(200);
    const gaps = drawn.slice(1).map((at, i) => at - (drawn[i] ?? 0));
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(25);
    // Not much less often either: every other frame at 60 Hz.
    expect(drawn.length).toBeGreaterThanOrEqual(25);
    expect(drawn.at(-1)).toBeGreaterThanOrEqual(998);
  });

  it('draws even where no frame comes (a hidden window)', () => {
    vi.stubGlobal('requestAnimationFrame', () => 0);
    try {
      const draw = vi.fn();
      createDrawPacer(draw).request();
      vi.advanceTimersByTime(FRAME_FALLBACK_MS);
      expect(draw).toHaveBeenCalledTimes(1);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
