/**
 * Where each step of a plan is drawn: columns by longest path (a step sits one column right of
 * its furthest predecessor, so every edge points right), rows in the set's order within a
 * column. Edges are cubic curves from a node's right side to the next one's left side.
 */
import type { PlanEdge, PlanNode } from './model';

export const NODE_WIDTH = 168;
export const NODE_HEIGHT = 60;
const GAP_X = 56;
const GAP_Y = 16;
const PAD = 8;

export interface Placed {
  id: string;
  layer: number;
  row: number;
  x: number;
  y: number;
}

export interface Layout {
  nodes: Map<string, Placed>;
  width: number;
  height: number;
  layers: number;
}

/**
 * Each node's layer: 0 without predecessors, else one more than its furthest predecessor. The
 * scheduler refuses cycles before anything runs; an edge that would close one anyway (a
 * malformed graph) is ignored rather than looping.
 */
export function layers(nodes: readonly PlanNode[], edges: readonly PlanEdge[]): Map<string, number> {
  const preds = new Map<string, string[]>(nodes.map((n) => [n.id, []]));
  for (const e of edges) preds.get(e.to)?.push(e.from);
  const layer = new Map<string, number>();
  const visiting = new Set<string>();
  const visit = (id: string): number => {
    const done = layer.get(id);
    if (done !== undefined) return done;
    if (visiting.has(id)) return -1;
    visiting.add(id);
    let l = 0;
    for (const p of preds.get(id) ?? []) {
      if (preds.has(p)) l = Math.max(l, visit(p) + 1);
    }
    visiting.delete(id);
    layer.set(id, l);
    return l;
  };
  for (const n of nodes) visit(n.id);
  return layer;
}

export function layout(nodes: readonly PlanNode[], edges: readonly PlanEdge[]): Layout {
  const layerOf = layers(nodes, edges);
  const rows: number[] = [];
  const placed = new Map<string, Placed>();
  for (const n of nodes) {
    const layer = layerOf.get(n.id) ?? 0;
    const row = rows[layer] ?? 0;
    rows[layer] = row + 1;
    placed.set(n.id, { id: n.id, layer, row, x: PAD + layer * (NODE_WIDTH + GAP_X), y: PAD + row * (NODE_HEIGHT + GAP_Y) });
  }
  const columns = rows.length;
  const tallest = Math.max(0, ...rows);
  return {
    nodes: placed,
    layers: columns,
    width: columns === 0 ? 0 : 2 * PAD + columns * NODE_WIDTH + (columns - 1) * GAP_X,
    height: tallest === 0 ? 0 : 2 * PAD + tallest * NODE_HEIGHT + (tallest - 1) * GAP_Y,
  };
}

/** The SVG path of an edge between two placed nodes. */
export function edgePath(from: Placed, to: Placed): string {
  const x1 = from.x + NODE_WIDTH;
  const y1 = from.y + NODE_HEIGHT / 2;
  const x2 = to.x;
  const y2 = to.y + NODE_HEIGHT / 2;
  const bend = Math.max(16, (x2 - x1) / 2);
  return `M ${x1} ${y1} C ${x1 + bend} ${y1}, ${x2 - bend} ${y2}, ${x2} ${y2}`;
}
