/**
 * The assembler's explanation of one prompt, as stored with a model turn and answered by
 * `GET /v1/runs/{id}/context` (`TurnContext.assembly`). Mirrors
 * `crates/tessera-engine/src/assembler/explain.rs` (and `BudgetReport` in `budget.rs`), whose
 * field names are a stored format that only grows: the engine's types are not reachable from
 * the type generator in tessera-protocol, so this one is kept by hand, read defensively.
 */
import type { BlockType } from '../generated/BlockType';
import type { Priority } from '../generated/Priority';
import type { Role } from '../generated/Role';

export type Why = 'must' | 'priority' | 'system' | 'latest' | 'recent' | 'backfill';
export type DropReason = 'expired' | 'budget' | 'summarised' | 'unresolvable_ref' | 'empty' | 'duplicate';

export interface BudgetReport {
  window: number;
  reserved: number;
  available: number;
  used: number;
  must: number;
  history_cap: number;
  history_used: number;
  per_item_overhead: number;
  priming_overhead: number;
}

export interface IncludedBlock {
  block_id: string;
  block_type: BlockType;
  priority: Priority;
  position: number;
  tokens: number;
  token_estimate?: number;
  why: Why;
  rendered_from: 'content' | 'refs';
}

export interface CitedRef {
  evidence_id: string;
  selector?: string;
}

export interface IncludedMessage {
  index: number;
  message_id?: string;
  role: Role;
  tokens: number;
  why: Why;
  refs?: CitedRef[];
}

export interface UsedEvidence {
  evidence_id: string;
  selector?: string;
  block_id: string;
  rendered: boolean;
  tokens?: number;
}

export interface RefFailure {
  evidence_id: string;
  selector?: string;
  error: { kind: string; [key: string]: unknown };
}

export interface DroppedBlock {
  block_id: string;
  block_type: BlockType;
  priority: Priority;
  position: number;
  reason: DropReason;
  tokens?: number;
  expires_at?: string;
  errors?: RefFailure[];
  duplicate_of?: string;
}

export interface DroppedMessages {
  from: number;
  to: number;
  reason: DropReason;
  tokens?: number;
}

export interface SummaryReport {
  status: 'used' | 'absent' | 'empty' | 'no_range' | 'not_needed' | 'budget';
  from?: number;
  to?: number;
  tokens?: number;
  updated_at?: string;
  content?: string;
}

export interface Explanation {
  version: number;
  session_id: string;
  model: string;
  encoding: string;
  encoding_exact: boolean;
  now: string;
  budget: BudgetReport;
  history: { threshold_tokens: number; max_messages?: number; messages: number; exceeded_by?: 'tokens' | 'messages' };
  summary: SummaryReport;
  blocks: IncludedBlock[];
  messages: IncludedMessage[];
  evidences: UsedEvidence[];
  dropped_blocks: DroppedBlock[];
  dropped_messages: DroppedMessages[];
}

/** The budget as the picture draws it: where the window's tokens went. */
export interface BudgetShares {
  window: number;
  system: number;
  blocks: number;
  evidences: number;
  history: number;
  reserved: number;
  free: number;
}

/**
 * Splits the window: system messages and the prompt's fixed overhead, context blocks, evidence
 * blocks, the conversation (messages and summary), what is kept for the answer, and what was
 * left free.
 */
export function budgetShares(explanation: Explanation): BudgetShares {
  const b = explanation.budget;
  let blocks = 0;
  let evidences = 0;
  for (const block of explanation.blocks ?? []) {
    if (block.block_type === 'evidence') evidences += block.tokens;
    else blocks += block.tokens;
  }
  let systemMessages = 0;
  for (const m of explanation.messages ?? []) if (m.role === 'system') systemMessages += m.tokens;
  const system = systemMessages + (b.priming_overhead ?? 0);
  const history = b.history_used ?? 0;
  const free = Math.max(0, b.available - (system + blocks + evidences + history));
  return { window: b.window, system, blocks, evidences, history, reserved: b.reserved, free };
}
