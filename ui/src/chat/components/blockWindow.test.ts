import { describe, expect, it } from 'vitest';
import { estimateGroupHeight, FOCUS_NEIGHBOURS, groupKey, initialOut, nextOut, pinnedGroups, shiftAbove } from './blockWindow';

const none = new Map<number, boolean>();
const set = (...xs: number[]) => new Set(xs);
const states = (entries: [number, boolean][]) => new Map(entries);

describe('a long answer drawn in part: the arithmetic', () => {
  it('keys a group by its text: the same blocks, the same key; a grown block, another', () => {
    const blocks = ['# Title\n\n', 'Some text.\n\n', '```js\nlet a;\n```'];
    expect(groupKey([...blocks])).toBe(groupKey(blocks));
    expect(groupKey([...blocks.slice(0, 2), '```js\nlet a;\nlet b;\n```'])).not.toBe(groupKey(blocks));
    expect(groupKey(blocks.slice(0, 2))).not.toBe(groupKey(blocks));
  });

  it('estimates a group by its lines: more text, taller', () => {
    const short = estimateGroupHeight(['One line.\n\n'], 760);
    const long = estimateGroupHeight(['One line.\n\n', '```\n' + 'code\n'.repeat(20) + '```\n\n', 'x '.repeat(400)], 760);
    expect(short).toBeGreaterThan(0);
    expect(long).toBeGreaterThan(short + 20 * 20);
    // Narrower, the words wrap on more lines.
    expect(estimateGroupHeight(['x '.repeat(400)], 300)).toBeGreaterThan(estimateGroupHeight(['x '.repeat(400)], 760));
  });

  it('opens a long answer with its end in the page, two views of it, the rest out', () => {
    const heights = [1000, 1000, 1000, 1000, 300];
    // From the end: 300 + 10, then 1,000 + 10 (1,320 < 1,400), then 1,000 more reaches two views.
    expect([...initialOut(heights, 10, 700)].sort()).toEqual([0, 1]);
    // The last group is always in, however tall.
    expect([...initialOut([500, 50_000], 10, 700)]).toEqual([0]);
    expect(initialOut([100, 100], 10, 700).size).toBe(0);
  });

  it('puts a group in once it is near the view and takes it out once it is not even far: nothing in between', () => {
    const out = set(0, 1);
    // Nothing known yet: nothing changes, and the same set comes back.
    expect(nextOut(out, 4, none, none, set())).toBe(out);
    // Spacer 1 near the view: its group comes in.
    expect([...nextOut(out, 4, states([[1, true]]), none, set())]).toEqual([0]);
    // Group 3 beyond the far edge: out. Group 2 only beyond the near edge: stays.
    expect([...nextOut(out, 4, states([[2, false]]), states([[3, false], [2, true]]), set())].sort()).toEqual([0, 1, 3]);
    // A spacer not near stays out, even though it is within the far edge.
    expect(nextOut(out, 4, states([[0, false]]), states([[0, true]]), set())).toBe(out);
  });

  it('keeps pinned groups in (the focus, the selection) and brings them back', () => {
    const out = set(0);
    expect(nextOut(out, 3, none, states([[1, false], [2, false]]), set(1, 2))).toBe(out);
    expect([...nextOut(out, 3, none, none, set(0))]).toEqual([]);
  });

  it('forgets groups that are no more', () => {
    expect([...nextOut(set(1, 5), 3, none, none, set())]).toEqual([1]);
  });

  it(`pins the focused group with ${FOCUS_NEIGHBOURS} either side, and the selection from end to end`, () => {
    expect([...pinnedGroups(0, null, 10)].sort()).toEqual([0, 1]);
    expect([...pinnedGroups(5, null, 10)].sort()).toEqual([4, 5, 6]);
    expect([...pinnedGroups(9, null, 10)].sort()).toEqual([8, 9]);
    // A selection dragged upwards is the same stretch.
    expect([...pinnedGroups(null, [6, 3], 10)].sort()).toEqual([3, 4, 5, 6]);
    expect([...pinnedGroups(1, [3, 3], 10)].sort()).toEqual([0, 1, 2, 3]);
    expect(pinnedGroups(null, null, 10).size).toBe(0);
  });

  it('keeps the view: groups wholly above its top and spacers reaching into it move it by their change', () => {
    // The view's top at 0 (viewport pixels): a group from -3,000 to -1,000 now 2,500 tall.
    expect(shiftAbove([{ top: -3_000, before: 2_000, after: 2_500 }], 0)).toBe(500);
    // A group reaching into the view: what is seen of it is its top, which did not move.
    expect(shiftAbove([{ top: -100, before: 2_000, after: 2_500 }], 0)).toBe(0);
    // A spacer reaching into the view, now its group: what was seen of it was blank; what follows
    // it stays where it was.
    expect(shiftAbove([{ top: -100, before: 2_000, after: 2_500, blank: true }], 0)).toBe(500);
    expect(shiftAbove([{ top: 100, before: 2_000, after: 2_500, blank: true }], 0)).toBe(0);
    // Below the view: nothing read moves.
    expect(shiftAbove([{ top: 300, before: 100, after: 900 }], 0)).toBe(0);
    // Two above: the lower one is where it was before the upper one grew (its top now is 400 lower).
    expect(
      shiftAbove(
        [
          { top: -1_100 + 400, before: 1_000, after: 900 },
          { top: -5_000, before: 1_000, after: 1_400 },
        ],
        0,
      ),
    ).toBe(300);
    // The upper one grew so much that the lower one starts below the view now; before, it was above.
    expect(shiftAbove([{ top: -5_000, before: 1_000, after: 6_000 }, { top: -1_000 + 5_000, before: 900, after: 1_000 }], 0)).toBe(5_100);
    // One starting below the view's top, after one above: only the one above counts.
    expect(shiftAbove([{ top: -5_000, before: 1_000, after: 1_200 }, { top: 200 + 200, before: 900, after: 100 }], 0)).toBe(200);
  });
});
