import { describe, expect, it } from 'vitest';
import { AHEAD, followBy, MARGIN_PX } from './follow';

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
});
