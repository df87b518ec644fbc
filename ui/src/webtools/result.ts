import type { ToolResult } from '../generated/ToolResult';
import type { JsonValue } from '../generated/serde_json/JsonValue';
import type { ToolFailureCode } from '../generated/ToolFailureCode';

/** What an executor hands back: the TOOL_CALL_RESPONSE result without its call id and timing. */
export type Outcome = { status: 'SUCCESS'; result: JsonValue } | { status: 'ERROR'; code: ToolFailureCode; message: string };

export function ok(result: JsonValue): Outcome {
  return { status: 'SUCCESS', result };
}

/** A failure in Tessera's words: one of its tool failure codes (generated from Rust). */
export function fail(code: ToolFailureCode, message: string): Outcome {
  return { status: 'ERROR', code, message };
}

/** The outcome as the §4.5.4 result of call `callId`. */
export function toToolResult(callId: string, outcome: Outcome, executionTime: number): ToolResult {
  const base = {
    callId,
    executionTime: Math.max(0, Math.round(executionTime)),
    clientInfo: { deviceType: 'desktop', browser: typeof navigator !== 'undefined' ? navigator.userAgent : 'unknown' },
  };
  return outcome.status === 'SUCCESS'
    ? { ...base, status: 'SUCCESS', result: outcome.result }
    : { ...base, status: 'ERROR', error: { code: outcome.code, message: outcome.message } };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
