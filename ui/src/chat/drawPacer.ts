/**
 * When streamed events are drawn: at most once a frame, and no sooner than `DRAW_INTERVAL_MS`
 * after the last drawing (`FAST_DRAW_INTERVAL_MS` while events come faster than
 * `FAST_REQUESTS_PER_SECOND`). A long answer arrives as thousands of deltas, several per frame;
 * drawing each would redo the same work many times over and block the page.
 */

/**
 * The shortest time between two drawings: every other frame at 60 Hz. Each drawing costs the
 * page a render, a layout and a paint whatever it adds; a fast model's answer (1,000 tokens a
 * second) drawn every frame kept WebKit's page thread 60–67 % busy, drawn every other frame
 * 50–56 % (`scripts/figures.mjs`), and 30 drawings a second still read as a stream. Far fewer
 * drawings each carried too much while every block of a long answer was in the page (every
 * 100 ms: twice the long tasks); drawn in part (components/useBlockWindow.ts), a fast stream is
 * drawn every `FAST_DRAW_INTERVAL_MS`.
 */
export const DRAW_INTERVAL_MS = 25;
/**
 * The shortest time between two drawings while events stream faster than anyone reads (a model
 * writing ~1,000 tokens a second): 10 drawings a second, each adding ~100 tokens. Measured in
 * WebKitGTK under Xvfb (the desktop app's renderer without a GPU) on a streamed 20k-token answer
 * drawn in part (components/useBlockWindow.ts), the page's thread busy (medians of 3 runs side
 * by side): drawn every 50 ms 24.6 %, 66 ms 23.5 %, 100 ms 20.4 %, with no task over 50 ms more.
 */
export const FAST_DRAW_INTERVAL_MS = 100;
/** Requests a second (events folded) above which a stream is drawn at `FAST_DRAW_INTERVAL_MS`: more than one a frame at 60 Hz. */
export const FAST_REQUESTS_PER_SECOND = 60;
/** Where frames do not come (a hidden tab, a minimised window), drawn after this long anyway. */
export const FRAME_FALLBACK_MS = 100;

/** Runs `draw` before the next frame, or after `FRAME_FALLBACK_MS` if no frame comes. */
function beforeNextFrame(draw: () => void): void {
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    draw();
  };
  if (typeof requestAnimationFrame === 'function') requestAnimationFrame(once);
  setTimeout(once, FRAME_FALLBACK_MS);
}

/** How long a pace is averaged over (ms): one drawing that happens to take in an extra request does not change it. */
export const PACE_MS = 250;

/**
 * The stream's pace, in requests a second, after a drawing that took in `requests` requests
 * `sinceLastMs` after the one before, the pace being `before` until then: averaged over about
 * `PACE_MS` (a first drawing, or one after a pause of a second or more, starts afresh).
 */
export function paceAfter(before: number, requests: number, sinceLastMs: number): number {
  if (!(sinceLastMs > 0) || !(sinceLastMs < 1000)) return 0;
  const now = (requests * 1000) / sinceLastMs;
  return before + ((now - before) * sinceLastMs) / (sinceLastMs + PACE_MS);
}

/** The time to leave after a drawing, at `pace` requests a second. */
export function drawInterval(pace: number): number {
  return pace > FAST_REQUESTS_PER_SECOND ? FAST_DRAW_INTERVAL_MS : DRAW_INTERVAL_MS;
}

/**
 * `request()` asks for a drawing; `draw` runs once for every burst of requests, paced as above,
 * and always after the last request (it reads the newest state itself). `due()`: whether a
 * drawing is on its way.
 */
export function createDrawPacer(draw: () => void): { request: () => void; due: () => boolean } {
  let scheduled = false;
  let last = Number.NEGATIVE_INFINITY;
  let pace = 0;
  /** Requests since the last drawing. */
  let requests = 0;
  const run = () => {
    scheduled = false;
    const now = performance.now();
    pace = paceAfter(pace, requests, now - last);
    requests = 0;
    last = now;
    draw();
  };
  return {
    /** Whether a drawing is on its way. */
    due: () => scheduled,
    request() {
      requests += 1;
      if (scheduled) return;
      scheduled = true;
      const wait = last + drawInterval(pace) - performance.now();
      if (wait > 0) setTimeout(() => beforeNextFrame(run), wait);
      else beforeNextFrame(run);
    },
  };
}
