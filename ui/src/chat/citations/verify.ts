/**
 * Whether a citation in an answer names a passage its run was given. A run is given passages in
 * two ways: the evidence blocks of a project's conversation its prompt was assembled with
 * (`turns[].assembly.evidences` of `GET /v1/runs/{id}/context`), and the hits its
 * `search_knowledge` calls returned (the answer's `cited` evidences). Only `rag_doc` evidences
 * (their `source` names the file, its `lines` and, for a PDF, its `page`) are passages; blocks
 * left out of the prompt, and evidences of earlier runs, are not.
 */
import type { Evidence } from '../../generated/Evidence';
import type { JsonValue } from '../../generated/serde_json/JsonValue';
import type { RunContext } from '../../generated/RunContext';
import type { Citation } from './parse';

/** A passage the run was given, as the pane shows it. */
export interface Passage {
  evidenceId: string;
  path: string;
  /** `[start, end]`: the text's first line is line `start` (of the page's text for a PDF). */
  lines: [number, number] | null;
  page: number | null;
  text: string;
  project: string | null;
  score: number | null;
  heading: string | null;
}

function num(value: JsonValue | undefined): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function str(value: JsonValue | undefined): string | null {
  return typeof value === 'string' ? value : null;
}

/** `"12-18"` (or `"12"`, or `[12, 18]`) as `[12, 18]`. */
export function readLines(value: JsonValue | undefined): [number, number] | null {
  if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'number' && typeof value[1] === 'number') return [value[0], value[1]];
  if (typeof value === 'number') return [value, value];
  if (typeof value !== 'string') return null;
  const match = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(value);
  if (!match) return null;
  const start = Number(match[1]);
  const end = match[2] === undefined ? start : Number(match[2]);
  return end >= start ? [start, end] : null;
}

/** The passage an evidence is, if it is one (a `rag_doc` whose source names a file). */
export function passageOf(evidence: Evidence): Passage | null {
  // The source carries more than the generated type names (`path`, `lines`, `page`…).
  const source = evidence.source as unknown as Record<string, JsonValue | undefined>;
  if (evidence.type !== 'rag_doc' && source.kind !== 'rag') return null;
  const path = str(source.path);
  if (!path) return null;
  const metadata = evidence.metadata ?? {};
  const content = evidence.content;
  return {
    evidenceId: evidence.evidence_id,
    path,
    lines: readLines(source.lines),
    page: num(source.page),
    text: typeof content === 'string' ? content : content === undefined || content === null ? '' : JSON.stringify(content, null, 2),
    project: str(metadata.project),
    score: num(metadata.score),
    heading: str(metadata.heading),
  };
}

/** The passages run `context` was given, in the order it was given them. */
export function passagesGiven(context: RunContext): Passage[] {
  const given = new Set<string>();
  for (const turn of context.turns) {
    for (const used of turn.assembly?.evidences ?? []) given.add(used.evidence_id);
  }
  for (const id of context.cited) given.add(id);
  const byId = new Map(context.evidences.map((e) => [e.evidence_id, e]));
  const passages: Passage[] = [];
  for (const id of given) {
    const evidence = byId.get(id);
    const passage = evidence ? passageOf(evidence) : null;
    if (passage) passages.push(passage);
  }
  return passages;
}

/** Paths compared as the same text whatever the Unicode form (macOS keeps names decomposed). */
function samePath(a: string, b: string): boolean {
  return a === b || a.normalize('NFC') === b.normalize('NFC');
}

/**
 * The passage `citation` names among `passages`: the same path, and the page it cites, or lines
 * that hold every line it cites (a PDF's passage is cited by its page only). Null: not given.
 */
export function findPassage(citation: Citation, passages: readonly Passage[]): Passage | null {
  for (const passage of passages) {
    if (!samePath(passage.path, citation.path)) continue;
    if (citation.page !== null) {
      if (passage.page === citation.page) return passage;
      continue;
    }
    const cited = citation.lines;
    const held = passage.lines;
    if (passage.page === null && cited && held && held[0] <= cited[0] && cited[1] <= held[1]) return passage;
  }
  return null;
}
