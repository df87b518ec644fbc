/**
 * When streamed events are drawn: at most once a frame, and no sooner than `DRAW_INTERVAL_MS`
 * after the last drawing. A long answer arrives as thousands of deltas, several per frame;
 * drawing each would redo the same work many times over and block the page.
 */

/**
 * The shortest time between two drawings: every other frame at 60 Hz. Each drawing costs the
 * page a render, a layout and a paint whatever it adds; a fast model's answer (1,000 tokens a
 * second) drawn every frame kept WebKit's page thread 60–67 % busy, drawn every other frame
 * 50–56 % (`scripts/figures.mjs`), and 30 drawings a second still read as a stream. Far fewer
 * drawings each carry too much (every 100 ms: twice the long tasks).
 */
export const DRAW_INTERVAL_MS = 25;
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

/**
 * `request()` asks for a drawing; `draw` runs once for every burst of requests, paced as above,
 * and always after the last request (it reads the newest state itself).
 */
export function createDrawPacer(draw: () => void): { request: () => void } {
  let scheduled = false;
  let last = Number.NEGATIVE_INFINITY;
  const run = () => {
    scheduled = false;
    last = performance.now();
    draw();
  };
  return {
    request() {
      if (scheduled) return;
      scheduled = true;
      const wait = last + DRAW_INTERVAL_MS - performance.now();
      if (wait > 0) setTimeout(() => beforeNextFrame(run), wait);
      else beforeNextFrame(run);
    },
  };
}
