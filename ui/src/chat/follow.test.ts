import { describe, expect, it } from 'vitest';
import { AHEAD, AHEAD_MAX, aheadFor, followBy, MARGIN_PX, ROOM_MS, roomBelow } from './follow';

describe('following a streaming answer', () => {
  const view = { viewTop: 100, viewHeight: 500 };

  it('does not scroll while the newest text is in view', () => {
    expect(followBy({ ...view, contentEnd: 300 })).toBe(0);
    expect(followBy({ ...view, contentEnd: 600 - MARGIN_PX })).toBe(0);
  });

  it('jumps a page once the newest text reaches the bottom, leaving room below it', () => {
    const by = followBy({ ...view, contentEnd: 600 - MARGIN_PX + 1 });
    // After the jump the text ends at (1 - AHEAD) of the view's height.
    expect(600 - MARGIN_PX + 1 - by).toBe(100 + Math.round(500 * (1 - AHEAD)));
    // The next lines fit below without another scroll.
    expect(followBy({ ...view, contentEnd: 600 - MARGIN_PX + 1 - by + 100 })).toBe(0);
  });

  it('brings text far below the view up to the same place', () => {
    expect(followBy({ ...view, contentEnd: 5_000 })).toBe(5_000 - 100 - 300);
  });

  it('does nothing for a view that is not laid out', () => {
    expect(followBy({ viewTop: 0, viewHeight: 0, contentEnd: 0 })).toBe(0);
  });

  it('reserves room at a jump for the text to land in, so the jump never runs out of page', () => {
    // The text ends 2,000 px into the conversation: after the jump the view (500 px) shows its
    // end at (1 - AHEAD) of its height, so the conversation must reach AHEAD of a view further.
    const room = roomBelow(2_000, 500);
    expect(room).toBeGreaterThanOrEqual(2_000 + 500 * AHEAD);
    // Until the next jump (text within MARGIN_PX of the view's bottom) the answer grows inside it.
    expect(room).toBeGreaterThanOrEqual(2_000 + 500 * AHEAD + MARGIN_PX - 1);
  });

  it('leaves more room at a jump for an answer streaming faster than anyone reads, within the view', () => {
    // A model's usual pace (a few hundred pixels a second): the usual room.
    expect(aheadFor(300, 700)).toBe(AHEAD);
    expect(aheadFor(0, 700)).toBe(AHEAD);
    expect(aheadFor(Number.NaN, 700)).toBe(AHEAD);
    // Fast: room for ROOM_MS of it, at most AHEAD_MAX of the view.
    expect(aheadFor(2_000, 700)).toBeCloseTo((2_000 * ROOM_MS) / 1000 / 700);
    expect(aheadFor(6_000, 700)).toBe(AHEAD_MAX);
    // The jump and the reserved room follow it: the text lands higher, the room reaches further.
    const fast = aheadFor(6_000, 500);
    const by = followBy({ ...view, contentEnd: 600, ahead: fast });
    expect(600 - by).toBe(100 + Math.round(500 * (1 - AHEAD_MAX)));
    expect(roomBelow(2_000, 500, fast)).toBeGreaterThanOrEqual(2_000 + 500 * AHEAD_MAX + MARGIN_PX - 1);
  });
});
