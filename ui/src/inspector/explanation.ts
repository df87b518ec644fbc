/**
 * The assembler's explanation of one prompt, as stored with a model turn and answered by
 * `GET /v1/runs/{id}/context` (`TurnContext.assembly`). The types are generated from
 * `crates/tessera-engine/src/assembler/explain.rs`; the stored format only grows, so older
 * stored explanations are read defensively (`?? []`).
 */
import type { DropReason } from '../generated/DropReason';
import type { Explanation } from '../generated/Explanation';
import type { Why } from '../generated/Why';

export type { DropReason, Explanation, Why };

/** The budget as the picture draws it: where the window's tokens went. */
export interface BudgetShares {
  window: number;
  system: number;
  /** The tool declarations sent with the prompt. */
  tools: number;
  blocks: number;
  evidences: number;
  history: number;
  reserved: number;
  free: number;
}

/**
 * Splits the window: the system prompt, system messages and the prompt's fixed overhead, the
 * tool declarations, context blocks, evidence blocks, the conversation (messages and summary),
 * what is kept for the answer, and what was left free.
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
  // Explanations stored before the system prompt and the tools were counted lack them.
  const system = (b.system_prompt ?? 0) + systemMessages + (b.priming_overhead ?? 0);
  const tools = b.tools ?? 0;
  const history = b.history_used ?? 0;
  const free = Math.max(0, b.available - Math.max(b.used, system + tools + blocks + evidences + history));
  return { window: b.window, system, tools, blocks, evidences, history, reserved: b.reserved, free };
}
