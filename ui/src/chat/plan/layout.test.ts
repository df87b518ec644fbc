import { describe, expect, it } from 'vitest';
import { NODE_WIDTH, edgePath, layers, layout } from './layout';
import type { PlanEdge, PlanNode } from './model';

const node = (id: string): PlanNode => ({ id, label: id, state: 'PENDING' });
const edge = (from: string, to: string): PlanEdge => ({ from, to, kind: 'after' });

describe('plan layout', () => {
  it('puts each step one column right of its furthest predecessor', () => {
    // a → b → d, a → d, c alone, e after c and d
    const nodes = ['a', 'b', 'c', 'd', 'e'].map(node);
    const edges = [edge('a', 'b'), edge('b', 'd'), edge('a', 'd'), edge('c', 'e'), edge('d', 'e')];
    expect(Object.fromEntries(layers(nodes, edges))).toEqual({ a: 0, b: 1, c: 0, d: 2, e: 3 });
    const placed = layout(nodes, edges);
    expect(placed.layers).toBe(4);
    // a and c share column 0, in the set's order
    expect(placed.nodes.get('a')).toMatchObject({ layer: 0, row: 0 });
    expect(placed.nodes.get('c')).toMatchObject({ layer: 0, row: 1 });
    // every edge points right
    for (const e of edges) {
      const from = placed.nodes.get(e.from);
      const to = placed.nodes.get(e.to);
      expect(to && from && to.x > from.x + NODE_WIDTH).toBe(true);
    }
  });

  it('draws three steps, the third after the first two, in two columns', () => {
    const nodes = ['s1', 's2', 's3'].map(node);
    const edges = [edge('s1', 's3'), edge('s2', 's3')];
    const placed = layout(nodes, edges);
    expect(placed.layers).toBe(2);
    const s1 = placed.nodes.get('s1');
    const s2 = placed.nodes.get('s2');
    const s3 = placed.nodes.get('s3');
    expect(s1?.x).toBe(s2?.x);
    expect(s2 && s1 && s2.y > s1.y).toBe(true);
    expect(placed.width).toBeGreaterThan(2 * NODE_WIDTH);
    if (!s1 || !s3) throw new Error('placed');
    expect(edgePath(s1, s3)).toMatch(new RegExp(`^M ${s1.x + NODE_WIDTH} `));
  });

  it('ignores an edge to an unknown step and does not loop on a malformed cycle', () => {
    const nodes = ['a', 'b'].map(node);
    const placed = layers(nodes, [edge('a', 'b'), edge('b', 'a'), edge('zz', 'a')]);
    expect(placed.size).toBe(2);
    expect(layout([], []).width).toBe(0);
  });
});
