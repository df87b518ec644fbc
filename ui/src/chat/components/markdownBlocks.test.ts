import { describe, expect, it } from 'vitest';
import { detached, splitBlocks, splitGrowing } from './markdownBlocks';

function blocks(text: string): string[] {
  const result = splitBlocks(text);
  expect(result.join('')).toBe(text);
  return result;
}

describe('splitBlocks', () => {
  it('cuts paragraphs, headings, tables and code at blank lines', () => {
    expect(blocks('# Title\n\nOne line\nand its continuation.\n\n| a | b |\n| - | - |\n| 1 | 2 |\n\n```\ncode\n```\n')).toEqual([
      '# Title\n\n',
      'One line\nand its continuation.\n\n',
      '| a | b |\n| - | - |\n| 1 | 2 |\n\n',
      '```\ncode\n```\n',
    ]);
  });

  it('keeps a fenced code block whole across blank lines, with ``` and with ~~~', () => {
    const backticks = '```js\nconst a = 1;\n\n\nconst b = 2;\n```';
    const tildes = '~~~python\nx = 1\n\n```\n\ny = 2\n~~~';
    expect(blocks(`Before\n\n${backticks}\n\n${tildes}\n\nAfter`)).toEqual(['Before\n\n', `${backticks}\n\n`, `${tildes}\n\n`, 'After']);
  });

  it('closes a fence only with the same character, at least as long, with nothing after it', () => {
    const text = '````\na\n\n```\n\n~~~~\n\n```` js\n\nb\n````\n\nafter';
    expect(blocks(text)).toEqual(['````\na\n\n```\n\n~~~~\n\n```` js\n\nb\n````\n\n', 'after']);
  });

  it('keeps a list whose items are apart (a loose list) and a nested list with its paragraphs together', () => {
    const loose = '- one\n\n- two\n\n1. three';
    const nested = '1. top\n   - inner\n\n     inner paragraph\n\n         indented code\n\n   back in top\n2. next';
    expect(blocks(`${loose}\n\nText\n\n${nested}\n\nEnd`)).toEqual([`${loose}\n\n`, 'Text\n\n', `${nested}\n\n`, 'End']);
  });

  it('cuts before a list that follows a paragraph', () => {
    expect(blocks('Intro\n\n- a\n- b')).toEqual(['Intro\n\n', '- a\n- b']);
  });

  it('keeps an HTML comment or <pre> with blank lines in one block', () => {
    expect(blocks('a\n\n<!--\n\nhidden\n\n-->\n\n<pre>\n\nx\n</pre>\n\nb')).toEqual(['a\n\n', '<!--\n\nhidden\n\n-->\n\n', '<pre>\n\nx\n</pre>\n\n', 'b']);
  });

  it('does not cut a text that defines link references or footnotes', () => {
    const text = 'See [the docs][d] and a note[^1].\n\nMore\n\n[d]: https://example.com\n[^1]: The note.';
    expect(blocks(text)).toEqual([text]);
  });

  it('leaves a growing last block (an open fence, a half-written line) as the last block', () => {
    expect(blocks('Done.\n\n```rust\nfn main() {\n\n    let x')).toEqual(['Done.\n\n', '```rust\nfn main() {\n\n    let x']);
    // The blank lines are written but not the next block yet: nothing to cut.
    expect(blocks('Done.\n\n')).toEqual(['Done.\n\n']);
    expect(blocks('\n\nFirst')).toEqual(['\n\nFirst']);
  });

  it('keeps the finished blocks identical while the text grows', () => {
    const text = 'Para one\n\n```\nx\n\ny\n```\n\n| a |\n| - |\n| 1 |\n\n1. item\n   more\n\nLast para with words';
    const whole = blocks(text);
    for (let end = 1; end <= text.length; end++) {
      const part = blocks(text.slice(0, end));
      for (let i = 0; i < part.length - 1; i++) expect(part[i]).toBe(whole[i]);
    }
  });

  it('handles CJK text', () => {
    expect(blocks('你好，世界。\n\n这是第二段：`代码`。\n\n- 项目一\n- 项目二\n\n　全角空格开头的段落')).toEqual([
      '你好，世界。\n\n',
      '这是第二段：`代码`。\n\n',
      '- 项目一\n- 项目二\n\n',
      '　全角空格开头的段落',
    ]);
  });
});

describe('splitGrowing', () => {
  it('gives what splitBlocks gives at every step of a growing text, reusing the finished blocks', () => {
    const text = 'Intro\n\n- a\n\n- b\n\n1\n\n```\nx\n\ny\n```\n\nPara\n\n- c\n\n- d\n\n2. e\n\nEnd [x]: not a definition\n\nmore';
    let previous = null as ReturnType<typeof splitGrowing> | null;
    for (let end = 0; end <= text.length; end++) {
      const part = text.slice(0, end);
      const next = splitGrowing(previous, part);
      expect(next.blocks, `after ${end} characters`).toEqual(splitBlocks(part));
      if (previous && previous.blocks.length > 3) expect(next.blocks[0]).toBe(previous.blocks[0]);
      previous = next;
    }
  });

  it('says when the text ends inside a code fence, also when grown from an earlier split', () => {
    const text = 'a\n\nb\n\nc\n\n```js\nx\n\n``\n```\n\n~~~\ny';
    const closedAt = text.indexOf('```\n\n~') + 3;
    let previous = null as ReturnType<typeof splitGrowing> | null;
    for (let end = 0; end <= text.length; end++) {
      const part = text.slice(0, end);
      previous = splitGrowing(previous, part);
      const inside = (end > text.indexOf('```js') + 2 && end < closedAt) || end > text.indexOf('~~~') + 2;
      expect(previous.openFence, `after ${end} characters`).toBe(inside);
    }
  });

  it('starts over when the text is replaced, or comes to define a reference', () => {
    const first = splitGrowing(null, 'a\n\nb\n\nc\n\nd');
    expect(splitGrowing(first, 'x\n\ny').blocks).toEqual(['x\n\n', 'y']);
    expect(splitGrowing(first, 'a\n\nb\n\nc\n\nd [r]\n\n[r]: https://example.com').blocks).toHaveLength(1);
  });
});

describe('detached', () => {
  it('gives the same text back (in a string of its own: a slice would keep the whole answer it was cut from)', () => {
    const answer = 'word '.repeat(10_000);
    for (const text of ['', 'a', 'ab', answer.slice(5, 2_000), 'ünïcødé 😀\u0000 text']) expect(detached(text)).toBe(text);
    // Every block of a split is one.
    const text = '# Title\n\nSome text.\n\n```js\nlet a;\n```\n';
    expect(splitBlocks(text).join('')).toBe(text);
  });
});
