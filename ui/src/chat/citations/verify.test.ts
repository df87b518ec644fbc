import { describe, expect, it } from 'vitest';
import type { Evidence } from '../../generated/Evidence';
import type { RunContext } from '../../generated/RunContext';
import type { Explanation } from '../../generated/Explanation';
import { chipState } from './CitationScope';
import { parseCitation, type Citation } from './parse';
import { findPassage, passagesGiven, readLines } from './verify';

function rag(id: string, path: string, lines: string, extra: { page?: number; text?: string } = {}): Evidence {
  const source = { kind: 'rag', name: 'knowledge', uri: `file://${path}#L${lines}`, path, lines, ...(extra.page ? { page: extra.page } : {}), sha256: 'ab', mtime: '2026-01-01T00:00:00Z' };
  return {
    evidence_id: id,
    type: 'rag_doc',
    source: source as Evidence['source'],
    content: extra.text ?? `text of ${id}`,
    metadata: { project: 'Atlas', citation: `${path}:${lines}`, score: 3.25, matched_by: ['lexical'], rule: 'x' },
  };
}

const EXPLANATION = {
  evidences: [
    { evidence_id: 'kn-plan', block_id: 'b1', rendered: true },
    { evidence_id: 'kn-paper', block_id: 'b2', rendered: true },
    { evidence_id: 'kn-cjk', block_id: 'b3', rendered: true },
  ],
} as unknown as Explanation;

const CONTEXT: RunContext = {
  run_id: 'r1',
  conversation_id: 'c1',
  message_id: 'm1',
  turns: [
    { turn_id: 't1', message_id: null, provider: 'p', model: 'm', started_at: '2026-01-01T00:00:00Z', finished_at: null, assembly: EXPLANATION },
    { turn_id: 't2', message_id: 'm1', provider: 'p', model: 'm', started_at: '2026-01-01T00:00:01Z', finished_at: null, assembly: null },
  ],
  blocks: [],
  evidences: [
    rag('kn-plan', '/home/a/notes/plan.md', '10-20', { text: 'line ten\nline eleven' }),
    rag('kn-paper', '/home/a/paper.pdf', '1-30', { page: 3 }),
    rag('kn-cjk', '/home/a/项目 笔记/会议.md', '1-4'),
    // A passage left out of the prompt (its block trimmed): never given.
    rag('kn-dropped', '/home/a/notes/dropped.md', '1-9'),
    // A hit of the run's search_knowledge call: the answer cites it, the model read it.
    rag('kn-searched', '/home/a/notes/found.md', '5-8'),
    { evidence_id: 'ev-tool', type: 'tool_result', source: { kind: 'tool', name: 'weather' }, content: 'sunny' },
  ],
  cited: ['kn-searched', 'ev-tool'],
};

const cite = (raw: string): Citation => {
  const c = parseCitation(raw);
  if (!c) throw new Error(raw);
  return c;
};

describe('which passages a run was given', () => {
  const passages = passagesGiven(CONTEXT);

  it('the evidences of its prompt and of its searches, never one left out, nor one that is no passage', () => {
    expect(passages.map((p) => p.evidenceId)).toEqual(['kn-plan', 'kn-paper', 'kn-cjk', 'kn-searched']);
    expect(passages[0]).toMatchObject({ path: '/home/a/notes/plan.md', lines: [10, 20], page: null, text: 'line ten\nline eleven', project: 'Atlas', score: 3.25 });
    expect(passages[1]).toMatchObject({ page: 3 });
  });

  it('verifies a citation whose lines the passage holds, or whose page it is', () => {
    expect(findPassage(cite('[/home/a/notes/plan.md:12-18]'), passages)?.evidenceId).toBe('kn-plan');
    expect(findPassage(cite('[/home/a/notes/plan.md:10-20]'), passages)?.evidenceId).toBe('kn-plan');
    expect(findPassage(cite('[/home/a/notes/plan.md:20]'), passages)?.evidenceId).toBe('kn-plan');
    expect(findPassage(cite('[/home/a/paper.pdf#page=3]'), passages)?.evidenceId).toBe('kn-paper');
    expect(findPassage(cite('[/home/a/项目 笔记/会议.md:2-3]'), passages)?.evidenceId).toBe('kn-cjk');
    expect(findPassage(cite('[/home/a/notes/found.md:6]'), passages)?.evidenceId).toBe('kn-searched');
  });

  it('does not verify lines beyond the passage, another page, another file, or a passage left out', () => {
    expect(findPassage(cite('[/home/a/notes/plan.md:18-22]'), passages)).toBeNull();
    expect(findPassage(cite('[/home/a/notes/plan.md:9]'), passages)).toBeNull();
    expect(findPassage(cite('[/home/a/paper.pdf#page=4]'), passages)).toBeNull();
    expect(findPassage(cite('[/home/a/paper.pdf:2-3]'), passages)).toBeNull();
    expect(findPassage(cite('[/home/a/notes/other.md:12]'), passages)).toBeNull();
    expect(findPassage(cite('[/home/a/notes/dropped.md:2]'), passages)).toBeNull();
  });

  it('takes a name however its Unicode is composed', () => {
    const decomposed = '/home/a/Café.md'.normalize('NFD');
    const given = passagesGiven({ ...CONTEXT, evidences: [rag('kn-plan', decomposed, '1-3')] });
    expect(findPassage(cite('[/home/a/Café.md:2]'), given)?.evidenceId).toBe('kn-plan');
  });

  it('says verified, unverified, or why it cannot say', () => {
    const c = cite('[/home/a/notes/plan.md:12-18]');
    expect(chipState(c, { status: 'ready', passages }).state).toBe('verified');
    expect(chipState(cite('[/nowhere/sent.md:1]'), { status: 'ready', passages }).state).toBe('unverified');
    expect(chipState(c, { status: 'ready', passages: [] }).state).toBe('unverified');
    expect(chipState(c, { status: 'checking', passages: [] }).state).toBe('checking');
    expect(chipState(c, { status: 'unknown', passages: [] }).state).toBe('unchecked');
    expect(chipState(c, null).state).toBe('unchecked');
  });

  it('reads a span of lines however the source writes it', () => {
    expect(readLines('12-18')).toEqual([12, 18]);
    expect(readLines('7')).toEqual([7, 7]);
    expect(readLines([3, 4])).toEqual([3, 4]);
    expect(readLines('9-2')).toBeNull();
    expect(readLines(undefined)).toBeNull();
  });
});
