/**
 * Which front-end calls of the conversation shown this window should run now: calls of its own
 * tools (runtime FRONTEND, announced by this client) that have no result yet and whose run has
 * not ended. A call replayed from the stored events after a reload already has its result (or
 * its run's end) in the same replay, so it is never run twice.
 */
import type { ChatState, ToolCard } from '../chat/reducer';
import type { JsonValue } from '../generated/serde_json/JsonValue';
import { WEB_CLIENT_ID, isWebTool, type WebToolName } from './definitions';

export interface PendingWebCall {
  callId: string;
  name: WebToolName;
  arguments: JsonValue | undefined;
}

const WAITING = new Set(['called', 'queued', 'running']);

function runOf(chat: ChatState, card: ToolCard): string | null {
  let top = card;
  for (let depth = 0; top.parentId && depth < 16; depth++) {
    const parent = chat.tools[top.parentId];
    if (!parent) break;
    top = parent;
  }
  for (const id of chat.messageOrder) {
    const message = chat.messages[id];
    if (message?.parts.some((p) => p.kind === 'tool' && p.id === top.id)) return message.runId;
  }
  return null;
}

export function pendingWebCalls(chat: ChatState): PendingWebCall[] {
  const out: PendingWebCall[] = [];
  for (const card of Object.values(chat.tools)) {
    if (card.runtime !== 'FRONTEND' || !isWebTool(card.name) || !WAITING.has(card.phase)) continue;
    if (card.provider !== undefined && card.provider !== `client:${WEB_CLIENT_ID}`) continue;
    const runId = runOf(chat, card);
    if (runId && chat.runs[runId]?.done) continue;
    out.push({ callId: card.id, name: card.name, arguments: card.arguments });
  }
  return out;
}

/** Whether call `callId` still waits for this window (no result has come for it). */
export function stillWaiting(chat: ChatState, callId: string): boolean {
  return pendingWebCalls(chat).some((c) => c.callId === callId);
}
