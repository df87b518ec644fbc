/**
 * An instruction set as the chat draws it. The shape comes from `workflow/graph` (sent when the
 * set starts and again when it ends; an instruction set's nodes carry `node_kind: instruction`);
 * each step's live state comes from the tool events of the same id (`tool_queued`,
 * `tool_started`, `tool_progress`, `tool_result`), which the reducer already folds into tool
 * cards. Keeping the state in one place (the cards) means a step never shows two answers.
 */
import type { JsonValue } from '../../generated/serde_json/JsonValue';
import type { ToolCard } from '../reducer';

export interface PlanNode {
  id: string;
  /** The step's tool (its instruction's `action`). */
  label: string;
  /** The state the last `workflow/graph` gave (MCP-CP words: PENDING, RUNNING, COMPLETED…). */
  state: string;
}

export interface PlanEdge {
  from: string;
  to: string;
  /** `after` (requiredAfter / dependencies), `data` (a `${…}` reference), `conflict`, `phase`. */
  kind: string;
}

export interface Plan {
  /** The first step's id: the same in the start and the end graph of one set. */
  id: string;
  /** The call the set runs inside (a planner's `invoke_planner` call), from the nested ids. */
  parentId: string | null;
  nodes: PlanNode[];
  edges: PlanEdge[];
}

/** What a person sees for a step. */
export type StepState = 'waiting' | 'queued' | 'running' | 'done' | 'failed' | 'skipped' | 'cancelled';

export const STEP_STATES: readonly StepState[] = ['waiting', 'queued', 'running', 'done', 'failed', 'skipped', 'cancelled'];

/** Edges that say a step needs another's result or end (drawn solid, listed as dependencies). */
export function isDependency(edge: PlanEdge): boolean {
  return edge.kind === 'after' || edge.kind === 'data';
}

function obj(v: JsonValue | undefined): Record<string, JsonValue | undefined> | null {
  return v && typeof v === 'object' && !Array.isArray(v) ? v : null;
}

/**
 * The plan a `workflow/graph` payload describes, or null when it is not an instruction set (a
 * model's round of tool calls also sends a graph; it is shown as tool cards only).
 */
export function planFromGraph(payload: Record<string, JsonValue | undefined>): Plan | null {
  const rawNodes = Array.isArray(payload['nodes']) ? payload['nodes'] : [];
  const nodes: PlanNode[] = [];
  let instruction = rawNodes.length > 0;
  for (const raw of rawNodes) {
    const n = obj(raw);
    const id = n?.['id'];
    if (!n || typeof id !== 'string') return null;
    if (n['node_kind'] !== 'instruction') instruction = false;
    const label = n['label'];
    const state = n['state'];
    nodes.push({ id, label: typeof label === 'string' ? label : id, state: typeof state === 'string' ? state : 'PENDING' });
  }
  const first = nodes[0];
  if (!instruction || !first) return null;
  const known = new Set(nodes.map((n) => n.id));
  const edges: PlanEdge[] = [];
  for (const raw of Array.isArray(payload['edges']) ? payload['edges'] : []) {
    const e = obj(raw);
    const from = e?.['from'];
    const to = e?.['to'];
    const kind = e?.['kind'];
    if (typeof from === 'string' && typeof to === 'string' && known.has(from) && known.has(to)) {
      edges.push({ from, to, kind: typeof kind === 'string' ? kind : 'after' });
    }
  }
  const slash = first.id.lastIndexOf('/');
  return { id: first.id, parentId: slash > 0 ? first.id.slice(0, slash) : null, nodes, edges };
}

/** The message's plans with `plan` added, or replacing the one of the same set. */
export function withPlan(plans: Plan[] | undefined, plan: Plan): Plan[] {
  const list = plans ?? [];
  const at = list.findIndex((p) => p.id === plan.id);
  return at >= 0 ? list.map((p, i) => (i === at ? plan : p)) : [...list, plan];
}

function fromOutcome(word: string): StepState | null {
  switch (word.toLowerCase()) {
    case 'success':
    case 'completed':
      return 'done';
    case 'skipped':
      return 'skipped';
    case 'cancelled':
    case 'interrupted':
      return 'cancelled';
    case 'error':
    case 'failed':
    case 'timeout':
    case 'denied':
    case 'not_found':
      return 'failed';
    case 'running':
      return 'running';
    default:
      return null;
  }
}

const ENDED: ReadonlySet<StepState> = new Set(['done', 'failed', 'skipped', 'cancelled']);

export function hasEnded(state: StepState): boolean {
  return ENDED.has(state);
}

/**
 * Each step's state. A step not started is `waiting` while one of its predecessors has not
 * ended, else `queued`. When the run is over, a step that never ended was cancelled with it.
 */
export function stepStates(plan: Plan, tools: Record<string, ToolCard>, runEnded: boolean): Map<string, StepState> {
  const known = new Map<string, StepState | null>();
  for (const node of plan.nodes) {
    const card = tools[node.id];
    const fromCard = card ? fromOutcome(card.phase) : null;
    const fromGraph = fromOutcome(node.state);
    known.set(node.id, fromCard && hasEnded(fromCard) ? fromCard : (fromGraph ?? fromCard));
  }
  const out = new Map<string, StepState>();
  for (const node of plan.nodes) {
    let state = known.get(node.id) ?? null;
    if (state === null) {
      const blocked = plan.edges.some((e) => e.to === node.id && !hasEnded(known.get(e.from) ?? 'waiting'));
      state = blocked ? 'waiting' : 'queued';
    }
    if (runEnded && !hasEnded(state)) state = 'cancelled';
    out.set(node.id, state);
  }
  return out;
}
