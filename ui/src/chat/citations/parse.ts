/**
 * Citations of a project's passages, as the engine heads each passage and asks the model to cite
 * it (crates/tessera-knowledge `KnowledgeHit::citation`): `[/abs/path:12-18]`, `[/abs/path:12]`
 * or `[/abs/path.pdf#page=3]`. The path is absolute (`/…`, or `C:\…` on Windows) and may hold
 * spaces and any script; it never holds a square bracket or a line break.
 */

/** One citation: the path, and the lines (`[start, end]`) or the PDF page it names. */
export interface Citation {
  /** As written, brackets included. */
  raw: string;
  path: string;
  lines: [number, number] | null;
  page: number | null;
}

/** A citation found in a text: where it starts and how long it is there. */
export interface FoundCitation {
  index: number;
  length: number;
  citation: Citation;
}

// `[`, an absolute path (no bracket, no line break), then `:a`, `:a-b` or `#page=n`, then `]`.
// The path is lazy, so it ends at the last `:`/`#page=` before the closing bracket that fits.
const CITATION = /\[((?:\/|[A-Za-z]:[\\/])[^[\]\n\r]*?)(?::(\d{1,9})(?:-(\d{1,9}))?|#page=(\d{1,9}))\]/g;

function toCitation(match: RegExpExecArray): Citation | null {
  const [raw, path = '', start, end, page] = match;
  if (path.trim() !== path || path.length < 2) return null;
  if (page !== undefined) {
    const n = Number(page);
    return n >= 1 ? { raw, path, lines: null, page: n } : null;
  }
  const a = Number(start);
  const b = end === undefined ? a : Number(end);
  if (a < 1 || b < a) return null;
  return { raw, path, lines: [a, b], page: null };
}

/** Every citation in `text`, in order. */
export function findCitations(text: string): FoundCitation[] {
  if (!text.includes('[')) return [];
  const found: FoundCitation[] = [];
  CITATION.lastIndex = 0;
  for (let match = CITATION.exec(text); match !== null; match = CITATION.exec(text)) {
    const citation = toCitation(match);
    if (citation) found.push({ index: match.index, length: match[0].length, citation });
  }
  return found;
}

/** `raw` read as one whole citation, or null. */
export function parseCitation(raw: string): Citation | null {
  const [only] = findCitations(raw);
  return only && only.index === 0 && only.length === raw.length ? only.citation : null;
}

/** The file's name: the path's last part. */
export function fileName(path: string): string {
  const parts = path.split(/[\\/]/).filter((p) => p !== '');
  return parts.at(-1) ?? path;
}

/** `12-18` or `12` (one line). */
export function linesText(lines: [number, number]): string {
  return lines[0] === lines[1] ? String(lines[0]) : `${lines[0]}-${lines[1]}`;
}
