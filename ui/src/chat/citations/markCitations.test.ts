import type { Element, Root } from 'hast';
import { describe, expect, it } from 'vitest';
import { blockParser } from '../components/markdownPipeline';
import { CITATION_TAG, hasMarkedCitation, markCitations } from './markCitations';

const parse = blockParser(() => null);

/** The citations marked in `markdown` parsed as an answer's block is, as written. */
function marked(markdown: string): string[] {
  const out: string[] = [];
  const walk = (node: Root | Element) => {
    for (const child of node.children) {
      if (child.type !== 'element') continue;
      if (child.tagName === CITATION_TAG) out.push(String(child.properties.dataCitation));
      else walk(child);
    }
  };
  walk(markCitations(parse(markdown, true)));
  return out;
}

describe('citations marked in an answer', () => {
  it('marks citations in prose, lists, tables, quotes and emphasis', () => {
    expect(marked('Ship on Friday [/home/a/notes/plan.md:12-18].')).toEqual(['[/home/a/notes/plan.md:12-18]']);
    expect(marked('- first [/home/a/My Notes/a b.md:3]\n- second [/home/张三/笔记/会议.md:1-2]')).toEqual(['[/home/a/My Notes/a b.md:3]', '[/home/张三/笔记/会议.md:1-2]']);
    expect(marked('| a | b |\n| - | - |\n| x | [/p/paper.pdf#page=3] |')).toEqual(['[/p/paper.pdf#page=3]']);
    expect(marked('> **As said [/p/plan.md:1]**')).toEqual(['[/p/plan.md:1]']);
  });

  it('never looks into code or links', () => {
    expect(marked('Run `cat [/p/plan.md:12-18]` first.')).toEqual([]);
    expect(marked('```\nsee [/p/plan.md:12-18]\n```')).toEqual([]);
    expect(marked('    indented [/p/plan.md:2]')).toEqual([]);
    expect(marked('A [link [/p/plan.md:2]](https://example.com) here.')).toEqual([]);
    expect(marked('`[/p/a.md:1]` but [/p/b.md:2]')).toEqual(['[/p/b.md:2]']);
  });

  it('keeps the text around a citation, and the tree it was given unchanged', () => {
    const tree = parse('Before [/p/plan.md:4-5] after.', true);
    const copy = structuredClone(tree);
    const out = markCitations(tree);
    expect(tree).toEqual(copy);
    const paragraph = out.children[0] as Element;
    expect(paragraph.children.map((c) => (c.type === 'text' ? c.value : c.type === 'element' ? `<${c.tagName}>` : c.type))).toEqual(['Before ', `<${CITATION_TAG}>`, ' after.']);
    expect(hasMarkedCitation(out)).toBe(true);
  });

  it('gives back the very tree when it has no citation', () => {
    const tree = parse('Nothing cited here, only [a bracket] and `code`.', true);
    expect(markCitations(tree)).toBe(tree);
  });
});
