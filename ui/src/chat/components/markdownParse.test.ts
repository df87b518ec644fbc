import type { Element, Nodes, Root } from 'hast';
import { describe, expect, it } from 'vitest';
import { MATH } from './markdownMath';
import { defaultUrlTransform, parseMarkdownBlock } from './markdownParse';
import { blockParser, hasMath } from './markdownPipeline';

/** Every element of `tree`, in document order. */
function elements(tree: Nodes): Element[] {
  const found: Element[] = [];
  const walk = (node: Nodes) => {
    if (node.type === 'element') found.push(node);
    if ('children' in node) for (const child of node.children) walk(child);
  };
  walk(tree);
  return found;
}

function tags(tree: Root): string[] {
  return elements(tree).map((e) => e.tagName);
}

function text(node: Nodes): string {
  if (node.type === 'text') return node.value;
  return 'children' in node ? node.children.map(text).join('') : '';
}

function classes(node: Element): string[] {
  const value = node.properties['className'];
  return Array.isArray(value) ? value.map(String) : [];
}

describe('parseMarkdownBlock', () => {
  it('reads a GFM table, with its alignment', () => {
    const tree = parseMarkdownBlock('| a | b |\n| --- | :-: |\n| 1 | 2 |', true);
    expect(tags(tree)).toEqual(['table', 'thead', 'tr', 'th', 'th', 'tbody', 'tr', 'td', 'td']);
    const cells = elements(tree).filter((e) => e.tagName === 'td');
    expect(cells.map(text)).toEqual(['1', '2']);
    expect(cells[1]?.properties['align']).toBe('center');
  });

  it('reads a task list as disabled checkboxes', () => {
    const tree = parseMarkdownBlock('- [ ] task\n- [x] done', true);
    const boxes = elements(tree).filter((e) => e.tagName === 'input');
    expect(boxes.map((b) => [b.properties['type'], b.properties['checked'], b.properties['disabled']])).toEqual([
      ['checkbox', false, true],
      ['checkbox', true, true],
    ]);
    expect(classes(elements(tree).find((e) => e.tagName === 'ul')!)).toContain('contains-task-list');
  });

  it('highlights code with a language into spans, and leaves it alone when asked to', () => {
    const source = '```rust\nfn main() { let x = 1; }\n```';
    const code = elements(parseMarkdownBlock(source, true)).find((e) => e.tagName === 'code')!;
    expect(classes(code)).toEqual(['hljs', 'language-rust']);
    const keywords = elements(code).filter((e) => e.tagName === 'span' && classes(e).includes('hljs-keyword'));
    expect(keywords.map(text)).toEqual(['fn', 'let']);
    expect(text(code)).toBe('fn main() { let x = 1; }\n');

    const plain = elements(parseMarkdownBlock(source, false)).find((e) => e.tagName === 'code')!;
    expect(classes(plain)).toEqual(['language-rust']);
    expect(elements(plain)).toEqual([plain]);
    expect(text(plain)).toBe('fn main() { let x = 1; }\n');
  });

  it('draws $x^2$ as MathML, and leaves money as text', () => {
    const tree = parseMarkdownBlock('Area $x^2$ costs $5 or $6.', true);
    const math = elements(tree).find((e) => e.tagName === 'math')!;
    expect(math.properties['xmlns']).toBe('http://www.w3.org/1998/Math/MathML');
    expect(elements(math).some((e) => e.tagName === 'msup')).toBe(true);
    // MathML only: no KaTeX HTML, which would need its stylesheet.
    expect(elements(tree).some((e) => classes(e).includes('katex-html'))).toBe(false);
    expect(text(tree)).toContain('costs $5 or $6.');
  });

  it('removes raw HTML that could run: <script>, <img onerror>, and keeps its text harmless', () => {
    const tree = parseMarkdownBlock('Hi <script>alert(1)</script> <img src=x onerror=alert(1)> <b>bold</b>', true);
    expect(tags(tree)).toEqual(['p']);
    expect(JSON.stringify(tree)).not.toContain('onerror');
    expect(JSON.stringify(tree)).not.toContain('<script');
  });

  it('removes javascript: links, keeps https: ones', () => {
    const tree = parseMarkdownBlock('[bad](javascript:alert(1)) [data](data:text/html,x) [good](https://example.com/a?b#c)', true);
    const links = elements(tree).filter((e) => e.tagName === 'a');
    expect(links.map((a) => a.properties['href'])).toEqual([undefined, undefined, 'https://example.com/a?b#c']);
    expect(defaultUrlTransform('javascript:alert(1)')).toBe('');
    expect(defaultUrlTransform('JaVaScRiPt:alert(1)')).toBe('');
    expect(defaultUrlTransform('mailto:a@example.com')).toBe('mailto:a@example.com');
    expect(defaultUrlTransform('./page:1')).toBe('./page:1');
  });

  it('gives plain data: no positions, and the same tree after a structured clone', () => {
    const source = '# T &amp; U\n\n- [x] a `b` **c** [d](https://e.com)\n\n```js\nconst a = 1;\n```\n\n| a |\n| - |\n| $x$ |';
    for (const highlight of [true, false]) {
      const tree = parseMarkdownBlock(source, highlight);
      expect(JSON.stringify(tree)).not.toContain('"position"');
      expect(structuredClone(tree)).toEqual(tree);
      expect(JSON.parse(JSON.stringify(tree))).toEqual(tree);
    }
  });

  it('gives the same tree for the same text every time (the shared highlighter keeps no state between parses)', () => {
    const source = '```python\ndef f(x):\n    return x  # n\n```';
    const first = parseMarkdownBlock(source, true);
    parseMarkdownBlock('```js\nlet a = `${b}`;\n```', true);
    expect(parseMarkdownBlock(source, true)).toEqual(first);
  });

  it('leaves $…$ as its text where math is not loaded yet, and draws it once it is', () => {
    let math: typeof MATH | null = null;
    const parse = blockParser(() => math);
    const before = parse('Area: $x^2$.', true);
    expect(tags(before)).not.toContain('math');
    expect(text(before)).toBe('Area: $x^2$.');
    math = MATH;
    const after = parse('Area: $x^2$.', true);
    expect(tags(after)).toContain('math');
    expect(after).toEqual(parseMarkdownBlock('Area: $x^2$.', true));
  });

  it('takes a `$` in closed code fences for code, and any other for possible math', () => {
    expect(hasMath('```bash\nfor f in *; do echo "$f"; done\n```')).toBe(false);
    expect(hasMath('~~~~sh\necho $HOME\n~~~~')).toBe(false);
    expect(hasMath('Area $x^2$')).toBe(true);
    expect(hasMath('```bash\necho $HOME\n```\n\nand $x$')).toBe(true);
    // Still being written: the fence is open, so its text may yet be anything.
    expect(hasMath('```bash\necho $HOME')).toBe(true);
    // A shorter fence does not close a longer one; a longer one closes a shorter.
    expect(hasMath('````\n$a\n```')).toBe(true);
    expect(hasMath('```\n$a\n````')).toBe(false);
    // Inline code with three backticks is no fence.
    expect(hasMath('```a``` costs $x$')).toBe(true);
    // Lines that look like fences inside an open one do not close it.
    expect(hasMath('```x\n'.repeat(1_000) + '$')).toBe(true);
    // Same tree either way for code: math never applies inside it.
    const parse = blockParser(() => null);
    const code = '```bash\necho "$f"\n```';
    expect(parse(code, true)).toEqual(parseMarkdownBlock(code, true));
  });
});
