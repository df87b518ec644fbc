import { describe, expect, it } from 'vitest';
import { fileName, findCitations, linesText, parseCitation } from './parse';

describe('citations of passages, as the engine writes them', () => {
  it('reads a span of lines, one line, and a PDF page', () => {
    expect(parseCitation('[/home/a/notes/plan.md:12-18]')).toEqual({ raw: '[/home/a/notes/plan.md:12-18]', path: '/home/a/notes/plan.md', lines: [12, 18], page: null });
    expect(parseCitation('[/home/a/notes/plan.md:7]')).toEqual({ raw: '[/home/a/notes/plan.md:7]', path: '/home/a/notes/plan.md', lines: [7, 7], page: null });
    expect(parseCitation('[/home/a/paper.pdf#page=3]')).toEqual({ raw: '[/home/a/paper.pdf#page=3]', path: '/home/a/paper.pdf', lines: null, page: 3 });
  });

  it('keeps paths with spaces, Chinese names, colons and Windows drives whole', () => {
    expect(parseCitation('[/home/a/My Notes/week plan.md:3-4]')?.path).toBe('/home/a/My Notes/week plan.md');
    expect(parseCitation('[/home/张三/项目 笔记/会议纪要.md:1-9]')).toMatchObject({ path: '/home/张三/项目 笔记/会议纪要.md', lines: [1, 9] });
    expect(parseCitation('[/home/a/报告.pdf#page=12]')).toMatchObject({ path: '/home/a/报告.pdf', page: 12 });
    expect(parseCitation('[/srv/a:b/c.md:5]')).toMatchObject({ path: '/srv/a:b/c.md', lines: [5, 5] });
    expect(parseCitation('[C:\\Users\\a\\notes.md:2-3]')).toMatchObject({ path: 'C:\\Users\\a\\notes.md', lines: [2, 3] });
  });

  it('finds each citation in a sentence, where it is', () => {
    const text = 'Ship on Friday [/p/plan.md:12-18] and test first [/p/测试 计划.md:4].';
    const found = findCitations(text);
    expect(found.map((f) => f.citation.path)).toEqual(['/p/plan.md', '/p/测试 计划.md']);
    for (const f of found) expect(text.slice(f.index, f.index + f.length)).toBe(f.citation.raw);
    // Two side by side.
    expect(findCitations('[/a.md:1][/b.md:2-3]').map((f) => f.citation.raw)).toEqual(['[/a.md:1]', '[/b.md:2-3]']);
  });

  it('leaves alone what is not a citation of a passage', () => {
    for (const text of [
      '[x]',
      '[ ] a task',
      '[notes/plan.md:1-2]',
      '[/a/plan.md]',
      '[/a/plan.md:0]',
      '[/a/plan.md:9-3]',
      '[/a/plan.md#page=0]',
      '[/a/plan.md:1-2 ]',
      '[ /a/plan.md:1-2]',
      '[/a/\nplan.md:1-2]',
      '[/:3]',
    ]) {
      expect(findCitations(text), text).toEqual([]);
    }
  });

  it('names the file and its lines as the chip shows them', () => {
    expect(fileName('/home/a/notes/plan.md')).toBe('plan.md');
    expect(fileName('C:\\Users\\a\\计划.md')).toBe('计划.md');
    expect(linesText([12, 18])).toBe('12-18');
    expect(linesText([7, 7])).toBe('7');
  });
});
