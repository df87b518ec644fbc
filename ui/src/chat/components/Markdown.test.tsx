import { render } from '@testing-library/react';
import type { ComponentPropsWithoutRef, ReactNode } from 'react';
import { I18nextProvider } from 'react-i18next';
import ReactMarkdown, { type Components } from 'react-markdown';
import rehypeHighlight from 'rehype-highlight';
import rehypeKatex from 'rehype-katex';
import rehypeSanitize from 'rehype-sanitize';
import remarkGfm from 'remark-gfm';
import remarkMath from 'remark-math';
import { describe, expect, it } from 'vitest';
import { createI18n } from '../../i18n';
import { Markdown, MarkdownBlock } from './Markdown';
import remarkMathDollars from './mathDollars';
import { splitBlocks, splitGrowing } from './markdownBlocks';

const i18n = createI18n('en');

/**
 * The HTML of a block-by-block rendering without its groups' elements (which hold the blocks and
 * nothing else): what a rendering in one piece gives.
 */
function ungrouped(container: HTMLElement): string {
  const copy = container.cloneNode(true) as HTMLElement;
  for (const group of copy.querySelectorAll('.markdown-group')) group.replaceWith(...group.childNodes);
  return copy.innerHTML;
}

/** The HTML of `text` rendered block by block (as the chat does) and in one piece. */
function both(text: string): { split: string; whole: string } {
  const split = render(
    <I18nextProvider i18n={i18n}>
      <Markdown text={text} />
    </I18nextProvider>,
  );
  const whole = render(
    <I18nextProvider i18n={i18n}>
      <div className="markdown">
        <MarkdownBlock text={text} />
      </div>
    </I18nextProvider>,
  );
  const result = { split: ungrouped(split.container), whole: whole.container.innerHTML };
  split.unmount();
  whole.unmount();
  return result;
}

const DOCUMENTS: Record<string, string> = {
  mixed: [
    '# Plan',
    'Some **bold** and `code`, a [link](https://example.com) and <b>raw html</b>.',
    '- one\n- two\n  - nested\n\n  nested paragraph\n- three',
    '| a | b |\n| --- | :-: |\n| 1 | 2 |',
    '```js\nconst a = 1;\n\nfunction f() { return a; }\n```',
    '~~~python\ndef f():\n\n    return "```"\n~~~',
    '> quoted\n> more',
    '> another quote',
    '1. first\n\n2. second (loose)',
    'Heading\n---',
    '***',
    '    indented code\n\n    still code',
    '- [ ] task\n- [x] done',
    'Closing words.',
  ].join('\n\n'),
  cjk: '你好，世界。这是**粗体**和`代码`。\n\n第二段：\n\n- 项目一\n- 项目二\n\n```\n中文注释\n\n// 代码\n```\n\n| 列 | 值 |\n| -- | -- |\n| 甲 | 一 |',
  html: 'Before\n\n<!--\n\na comment\n\n-->\n\n<script>\n\nalert(1)\n\n</script>\n\n<img src=x onerror=alert(1)>\n\nAfter',
  references: 'See [the docs][d] and a note[^1].\n\nMore text.\n\n[d]: https://example.com\n\n[^1]: The note.',
};

describe('Markdown rendered block by block', () => {
  for (const [name, text] of Object.entries(DOCUMENTS)) {
    it(`renders the ${name} document exactly as a whole rendering does`, () => {
      const { split, whole } = both(text);
      expect(split).toBe(whole);
    });
  }

  it('cuts the test documents into several blocks (so the comparison above means something)', () => {
    expect(splitBlocks(DOCUMENTS['mixed'] ?? '').length).toBeGreaterThan(8);
    expect(splitBlocks(DOCUMENTS['cjk'] ?? '').length).toBeGreaterThan(3);
  });

  it('shows, at every step of a streamed answer, what a whole rendering shows', () => {
    // One mounted Markdown, its text growing as deltas arrive: finished blocks are kept (memo),
    // the growing one is parsed again, and the page never differs from a fresh whole rendering.
    // While a code block is open its code is not coloured yet: then the page is the same as a
    // fresh split rendering, and its text the whole rendering's.
    const text = DOCUMENTS['mixed'] ?? '';
    const wrap = (node: ReactNode) => <I18nextProvider i18n={i18n}>{node}</I18nextProvider>;
    const streamed = render(wrap(<Markdown text="" />));
    const fresh = render(wrap(<div className="markdown" />));
    let open = 0;
    for (let end = 1; end <= text.length + 6; end += 7) {
      const part = text.slice(0, end);
      streamed.rerender(wrap(<Markdown text={part} />));
      fresh.rerender(
        wrap(
          <div className="markdown">
            <MarkdownBlock text={part} />
          </div>,
        ),
      );
      if (!splitGrowing(null, part).openFence) {
        expect(ungrouped(streamed.container), `after ${end} characters`).toBe(fresh.container.innerHTML);
        continue;
      }
      open += 1;
      expect(streamed.container.textContent, `after ${end} characters`).toBe(fresh.container.textContent);
      fresh.rerender(wrap(<Markdown key={end} text={part} />));
      expect(streamed.container.innerHTML, `after ${end} characters`).toBe(fresh.container.innerHTML);
    }
    expect(open).toBeGreaterThan(0);
  }, 60_000);

  it('keeps what it has shown (the same page nodes) while a long answer grows by many blocks', () => {
    // A person selecting text higher up while the answer streams keeps the selection: blocks
    // already drawn are not drawn again as later ones arrive, also past a hundred blocks.
    const wrap = (node: ReactNode) => <I18nextProvider i18n={i18n}>{node}</I18nextProvider>;
    const parts = Array.from({ length: 150 }, (_, i) => `## Part ${i}\n\nSome *text* ${i}.\n\n\`\`\`js\nlet x = ${i};\n\`\`\``);
    const view = render(wrap(<Markdown text={parts.slice(0, 3).join('\n\n')} />));
    const firstHeading = view.container.querySelector('h2');
    let text = parts.slice(0, 3).join('\n\n');
    for (const part of parts.slice(3)) {
      text += `\n\n${part}`;
      view.rerender(wrap(<Markdown text={text} />));
    }
    expect(view.container.querySelectorAll('h2').length).toBe(150);
    expect(view.container.querySelector('h2')).toBe(firstHeading);
    const whole = render(wrap(<div className="markdown"><MarkdownBlock text={text} /></div>));
    expect(ungrouped(view.container)).toBe(whole.container.innerHTML);
    // In groups of a few dozen blocks: a change lays out one group, not the whole answer.
    const groups = view.container.querySelectorAll('.markdown > .markdown-group');
    expect(groups.length).toBeGreaterThan(10);
    for (const group of groups) expect(group.children.length).toBeLessThanOrEqual(32);
    // 150 renders: past vitest's 5 s on a loaded two-core machine (a limit, not a figure).
  }, 30_000);

  it('colours a code block once its closing fence has come, with the copy button all along', () => {
    const wrap = (node: ReactNode) => <I18nextProvider i18n={i18n}>{node}</I18nextProvider>;
    const view = render(wrap(<Markdown text={'Intro.\n\n```js\nconst a = 1;\n'} />));
    expect(view.container.querySelector('pre code')?.textContent).toBe('const a = 1;\n');
    expect(view.container.querySelectorAll('pre code .hljs-keyword').length).toBe(0);
    expect(view.getByRole('button', { name: 'Copy code' })).toBeTruthy();
    view.rerender(wrap(<Markdown text={'Intro.\n\n```js\nconst a = 1;\n```\n'} />));
    expect(view.container.querySelectorAll('pre code .hljs-keyword').length).toBe(1);
    expect(view.getByRole('button', { name: 'Copy code' })).toBeTruthy();
  });

  it('labels a code block with its language, in a bar above the code', () => {
    const view = render(
      <I18nextProvider i18n={i18n}>
        <Markdown text={'```rust\nfn main() {}\n```\n\n```\nplain\n```\n\n> quoted'} />
      </I18nextProvider>,
    );
    const labels = view.getAllByTestId('code-language').map((l) => l.textContent);
    expect(labels).toEqual(['rust', 'code']);
    // The copy button is in the bar, not laid over the code.
    const bar = view.getAllByTestId('copy-code')[0]?.parentElement;
    expect(bar?.className).toBe('code-block-bar');
    expect(bar?.nextElementSibling?.tagName).toBe('PRE');
    expect(view.container.querySelector('blockquote')?.textContent?.trim()).toBe('quoted');
  });

  it('highlights finished code, sanitises, and keeps the copy button', () => {
    const view = render(
      <I18nextProvider i18n={i18n}>
        <Markdown text={DOCUMENTS['mixed'] ?? ''} />
      </I18nextProvider>,
    );
    expect(view.container.querySelectorAll('pre code .hljs-keyword').length).toBeGreaterThan(0);
    expect(view.container.querySelectorAll('script, img, b').length).toBe(0);
    expect(view.getAllByRole('button', { name: 'Copy code' }).length).toBe(3);
  });
});

describe('math', () => {
  function shown(text: string): HTMLElement {
    return render(
      <I18nextProvider i18n={i18n}>
        <Markdown text={text} />
      </I18nextProvider>,
    ).container;
  }

  it('draws $…$ inline and $$…$$ as a block, in MathML', () => {
    const view = shown('Euler: $e^{i\\pi}+1=0$ holds.\n\n$$\n\\int_0^1 x\\,dx = \\frac{1}{2}\n$$');
    const maths = view.querySelectorAll('math');
    expect(maths).toHaveLength(2);
    expect(maths[0]?.namespaceURI).toBe('http://www.w3.org/1998/Math/MathML');
    expect(maths[0]?.getAttribute('display')).not.toBe('block');
    expect(maths[0]?.querySelector('msup')).not.toBeNull();
    expect(maths[1]?.getAttribute('display')).toBe('block');
    expect(maths[1]?.querySelector('mfrac')).not.toBeNull();
    // The sentence around the inline formula is still text, and no TeX source is left showing.
    expect(view.querySelector('p')?.textContent).toContain('Euler:');
    expect(view.querySelector('code')).toBeNull();
    // MathML only: nothing that needs KaTeX's stylesheet (or an inline style the CSP refuses).
    expect(view.querySelector('.katex-html')).toBeNull();
    expect(view.querySelector('[style]')).toBeNull();
  });

  it('runs nothing a formula asks for: no links, no HTML', () => {
    const view = shown('$\\href{javascript:alert(1)}{x}$ and $\\htmlClass{evil}{y}$ and <script>alert(1)</script>');
    expect(view.querySelector('a')).toBeNull();
    expect(view.querySelector('script')).toBeNull();
    expect(view.querySelector('.evil')).toBeNull();
  });

  it('leaves prices that are not math as text', () => {
    const view = shown('It costs $5, or $6 with tax.');
    expect(view.textContent).toContain('$5');
  });

  it('shows a formula it cannot read as its source, not an error', () => {
    const view = shown('$\\frac{1}{$');
    expect(view.textContent).toContain('\\frac');
  });
});

describe('dollars as Pandoc reads them', () => {
  it('keeps money as text and formulas as math in one sentence', () => {
    const view = render(
      <I18nextProvider i18n={i18n}>
        <Markdown text={'Pay $10 now and $20 later; the rate is $r_1$, and $$x^2$$ inline.'} />
      </I18nextProvider>,
    ).container;
    expect(view.textContent).toContain('Pay $10 now and $20 later');
    expect(view.querySelectorAll('math')).toHaveLength(2);
  });
});

/**
 * How a block was drawn before the worker (react-markdown in the page, the same plugins and
 * options), with the code block and link components drawing just their element: the
 * comparison is of what the pipeline makes, which the components then dress.
 */
function Before({ text, highlight }: { text: string; highlight: boolean }) {
  const shared = rehypeHighlight({ detect: false });
  const katex = [rehypeKatex, { output: 'mathml', throwOnError: false, strict: 'ignore', trust: false, maxSize: 50, maxExpand: 500 }];
  const math = text.includes('$');
  const remarkPlugins = math ? [remarkGfm, [remarkMath, { singleDollarTextMath: true }], remarkMathDollars] : [remarkGfm];
  const rehypePlugins = [rehypeSanitize, ...(math ? [katex] : []), ...(highlight ? [() => shared] : [])];
  return (
    <ReactMarkdown remarkPlugins={remarkPlugins as never} rehypePlugins={rehypePlugins as never} components={PLAIN_COMPONENTS}>
      {text}
    </ReactMarkdown>
  );
}

const PLAIN_COMPONENTS: Components = {
  pre: ({ node: _node, ...props }: ComponentPropsWithoutRef<'pre'> & { node?: unknown }) => <pre {...props} />,
  a: ({ node: _node, ...props }: ComponentPropsWithoutRef<'a'> & { node?: unknown }) => <a {...props} />,
};

/** A rendering with the code block's bar, and the link's wrapper, target, rel and title, taken off. */
function withStandIns(container: HTMLElement): string {
  const copy = container.cloneNode(true) as HTMLElement;
  for (const block of copy.querySelectorAll('.code-block')) {
    const pre = block.querySelector(':scope > pre');
    if (!pre) throw new Error('a code block without its pre');
    block.replaceWith(pre);
  }
  for (const a of copy.querySelectorAll('a[href]')) {
    expect(a.getAttribute('target')).toBe('_blank');
    expect(a.getAttribute('rel')).toBe('noopener noreferrer nofollow');
    a.removeAttribute('target');
    a.removeAttribute('rel');
    // The full address a link shows on hover, unless the answer gave it a title of its own.
    if (a.getAttribute('title') === a.getAttribute('href')) a.removeAttribute('title');
  }
  // The link's wrapper (where its full address is shown before it opens).
  for (const wrapper of copy.querySelectorAll('span.answer-link')) wrapper.replaceWith(...wrapper.childNodes);
  return copy.innerHTML;
}

describe('the same page as before the worker', () => {
  const documents = {
    ...DOCUMENTS,
    math: 'Euler: $e^{i\\pi}+1=0$ holds, $5 does not.\n\n$$\n\\int_0^1 x\\,dx = \\frac{1}{2}\n$$\n\n$\\href{javascript:alert(1)}{x}$ $\\frac{1}{$',
    links: '[a](javascript:alert(1)) [b](https://example.com "t") <https://auto.example> www.example.com ![i](x.png) [c](mailto:a@b.c)',
    entities: '&amp; &copy; &#35; &notanentity; &ouml;\n\n`&lt;code&gt;`',
  };
  for (const [name, text] of Object.entries(documents)) {
    for (const highlight of [true, false]) {
      it(`draws the ${name} document as react-markdown did${highlight ? '' : ', uncoloured'}`, () => {
        const now = render(
          <I18nextProvider i18n={i18n}>
            <MarkdownBlock text={text} highlight={highlight} />
          </I18nextProvider>,
        );
        const before = render(<Before text={text} highlight={highlight} />);
        expect(withStandIns(now.container)).toBe(before.container.innerHTML);
        now.unmount();
        before.unmount();
      });
    }
  }
});
