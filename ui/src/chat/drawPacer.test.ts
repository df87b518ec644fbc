import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDrawPacer, DRAW_INTERVAL_MS, drawInterval, FAST_DRAW_INTERVAL_MS, FAST_REQUESTS_PER_SECOND, FRAME_FALLBACK_MS, paceAfter } from './drawPacer';

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

  it('says whether a drawing is on its way: from a request to the drawing', () => {
    const pacer = createDrawPacer(() => undefined);
    expect(pacer.due()).toBe(false);
    pacer.request();
    expect(pacer.due()).toBe(true);
    vi.advanceTimersByTime(FRAME_FALLBACK_MS);
    expect(pacer.due()).toBe(false);
  });

  /** Requests every `everyMs` for `forMs`, then 200 ms of nothing: when each drawing was. */
  function stream(pacer: { request(): void }, everyMs: number, forMs: number) {
    for (let t = 0; t < forMs; t += everyMs) {
      pacer.request();
      vi.advanceTimersByTime(everyMs);
    }
    vi.advanceTimersByTime(200);
  }
  const gapsOf = (drawn: number[]) => drawn.slice(1).map((at, i) => at - (drawn[i] ?? 0));

  it(`draws a stream of updates at a usual pace no more often than every ${DRAW_INTERVAL_MS} ms, and after the last one`, () => {
    const drawn: number[] = [];
    const pacer = createDrawPacer(() => drawn.push(performance.now()));
    // A delta every 30 ms for a second (a model writing ~30 tokens a second).
    stream(pacer, 30, 1000);
    expect(Math.min(...gapsOf(drawn))).toBeGreaterThanOrEqual(DRAW_INTERVAL_MS);
    // Not much less often either: each delta drawn, about.
    expect(drawn.length).toBeGreaterThanOrEqual(25);
    expect(drawn.at(-1)).toBeGreaterThanOrEqual(990);
  });

  it(`draws a fast stream (several updates a frame) every ${FAST_DRAW_INTERVAL_MS} ms, then the usual pace again after a pause`, () => {
    const drawn: number[] = [];
    const pacer = createDrawPacer(() => drawn.push(performance.now()));
    // A delta every 2 ms for a second: 500 updates.
    stream(pacer, 2, 1000);
    const gaps = gapsOf(drawn);
    // The first drawings at the usual pace, until the pace is seen.
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(DRAW_INTERVAL_MS);
    expect(Math.min(...gaps.slice(2))).toBeGreaterThanOrEqual(FAST_DRAW_INTERVAL_MS);
    expect(drawn.length).toBeGreaterThanOrEqual(1000 / FAST_DRAW_INTERVAL_MS - 2);
    expect(drawn.length).toBeLessThanOrEqual(1000 / FAST_DRAW_INTERVAL_MS + 3);
    expect(drawn.at(-1)).toBeGreaterThanOrEqual(998);
    // A second later, a slow stream: the usual pace at once.
    vi.advanceTimersByTime(1000);
    const slow: number[] = [];
    const from = drawn.length;
    stream(pacer, 30, 300);
    slow.push(...drawn.slice(from));
    expect(slow.length).toBeGreaterThanOrEqual(8);
    expect(Math.min(...gapsOf(slow))).toBeGreaterThanOrEqual(DRAW_INTERVAL_MS);
  });

  it(`counts a stream as fast above ${FAST_REQUESTS_PER_SECOND} updates a second, on average`, () => {
    expect(drawInterval(0)).toBe(DRAW_INTERVAL_MS);
    expect(drawInterval(FAST_REQUESTS_PER_SECOND)).toBe(DRAW_INTERVAL_MS);
    expect(drawInterval(FAST_REQUESTS_PER_SECOND + 1)).toBe(FAST_DRAW_INTERVAL_MS);
    // A drawing that happened to take in two requests of a slow stream does not make it fast.
    let pace = 0;
    for (let i = 0; i < 20; i++) pace = paceAfter(pace, 1, 40);
    expect(pace).toBeGreaterThan(22);
    expect(pace).toBeLessThanOrEqual(25);
    expect(paceAfter(pace, 2, 30)).toBeLessThan(FAST_REQUESTS_PER_SECOND);
    // A fast one is seen within half a second (faster, sooner); a pause starts afresh.
    pace = 0;
    for (let i = 0; i < 10; i++) pace = paceAfter(pace, 4, 40);
    expect(pace).toBeGreaterThan(FAST_REQUESTS_PER_SECOND);
    expect(paceAfter(pace, 1, 5_000)).toBe(0);
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
