/**
 * One top-level Markdown block (markdownBlocks.ts) to a hast tree, ready to be drawn: parsed with
 * GFM (and math when the block has a `$`), sanitised with GitHub's schema, then highlighted and
 * math drawn as MathML, then put through what react-markdown does to a tree before drawing it
 * (raw HTML left as text, URLs through its `defaultUrlTransform`). Its output is plain data
 * (structured-clone safe, no positions): the markdown worker (markdownWorker.ts) runs it off the
 * page's thread, and the page runs the very same function itself when no worker can start
 * (markdownClient.ts). Markdown.tsx draws the tree (hastRender.tsx).
 */
import type { Element, Nodes, Root } from 'hast';
import { urlAttributes } from 'html-url-attributes';
import rehypeHighlight from 'rehype-highlight';
import rehypeKatex from 'rehype-katex';
import rehypeSanitize from 'rehype-sanitize';
import remarkGfm from 'remark-gfm';
import remarkMath from 'remark-math';
import remarkParse from 'remark-parse';
import remarkRehype from 'remark-rehype';
import { unified } from 'unified';
import remarkMathDollars from './mathDollars';

// Math (`$…$`, `$$…$$`) as MathML, which the page draws natively: no KaTeX stylesheet, fonts or
// inline styles, so the Content-Security-Policy stays as strict as it is. KaTeX runs after the
// sanitiser (which keeps `language-math` on code), so what it writes is its own markup only.
// Only blocks with a `$` take the math parser: other text parses as before, and a price like
// "$5 and $6" stays text (mathDollars.ts).
const KATEX = { output: 'mathml', throwOnError: false, strict: 'ignore', trust: false, maxSize: 50, maxExpand: 500 } as const;

interface Processor {
  parse(text: string): unknown;
  runSync(tree: unknown, text: string): unknown;
}

// The four pipelines (math or not, highlighted or not), each made on first use: a page whose
// worker parses never pays for their setup.
const processors = new Map<string, Processor>();

function processor(math: boolean, highlight: boolean): Processor {
  const key = `${math ? 'm' : ''}${highlight ? 'h' : ''}`;
  let found = processors.get(key);
  if (found) return found;
  // One highlighter for every parse: the plugin's setup registers its languages, and each
  // grammar is compiled on first use, so a fresh one per parse would redo both every update.
  const shared = sharedHighlighter();
  // As react-markdown builds it: remark-parse, the remark plugins, remark-rehype keeping raw HTML
  // (for the sanitiser to remove), the rehype plugins.
  let chain = unified().use(remarkParse).use(remarkGfm) as unknown as Chain;
  if (math) chain = chain.use(remarkMath, { singleDollarTextMath: true }).use(remarkMathDollars);
  chain = chain.use(remarkRehype, { allowDangerousHtml: true }).use(rehypeSanitize);
  if (math) chain = chain.use(rehypeKatex, KATEX);
  if (highlight) chain = chain.use(() => shared);
  found = chain as unknown as Processor;
  processors.set(key, found);
  return found;
}

/** unified's `use`, without the plugin-by-plugin typing its chains need. */
interface Chain {
  use(plugin: unknown, options?: unknown): Chain;
}

let highlighter: ReturnType<typeof rehypeHighlight> | null = null;

function sharedHighlighter(): ReturnType<typeof rehypeHighlight> {
  highlighter ??= rehypeHighlight({ detect: false });
  return highlighter;
}

/**
 * The tree `text` draws as. `highlight: false` leaves code uncoloured: for code still being
 * written, which would otherwise be highlighted again, whole, on every delta.
 */
export function parseMarkdownBlock(text: string, highlight: boolean): Root {
  const pipeline = processor(text.includes('$'), highlight);
  const tree = pipeline.runSync(pipeline.parse(text), text) as Root;
  finish(tree);
  return tree;
}

const SAFE_PROTOCOL = /^(https?|ircs?|mailto|xmpp)$/i;

/** react-markdown's `defaultUrlTransform`: a URL with a protocol other than these is dropped. */
export function defaultUrlTransform(value: string): string {
  const colon = value.indexOf(':');
  const questionMark = value.indexOf('?');
  const numberSign = value.indexOf('#');
  const slash = value.indexOf('/');
  if (
    colon === -1 ||
    (slash !== -1 && colon > slash) ||
    (questionMark !== -1 && colon > questionMark) ||
    (numberSign !== -1 && colon > numberSign) ||
    SAFE_PROTOCOL.test(value.slice(0, colon))
  ) {
    return value;
  }
  return '';
}

/**
 * What react-markdown does to the tree before drawing it (raw HTML the sanitiser left becomes
 * its text; URL attributes go through `defaultUrlTransform`), and the positions dropped: nothing
 * draws them, and the tree crosses from the worker to the page smaller without.
 */
function finish(node: Nodes): void {
  delete node.position;
  if (node.type === 'element') transformUrls(node);
  if (!('children' in node)) return;
  const children = node.children;
  for (let i = 0; i < children.length; i++) {
    const child = children[i] as Nodes;
    if (child.type === 'raw') {
      children[i] = { type: 'text', value: child.value };
    } else {
      finish(child);
    }
  }
}

function transformUrls(node: Element): void {
  for (const key in urlAttributes) {
    if (!Object.hasOwn(urlAttributes, key) || !Object.hasOwn(node.properties, key)) continue;
    const tags = urlAttributes[key];
    if (tags === null || tags?.includes(node.tagName)) {
      const value = node.properties[key];
      node.properties[key] = defaultUrlTransform(String(value || ''));
    }
  }
}
