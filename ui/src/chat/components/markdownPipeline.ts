/**
 * The Markdown pipeline without math: one top-level block (markdownBlocks.ts) to a hast tree,
 * parsed with GFM, sanitised with GitHub's schema, highlighted, then put through what
 * react-markdown does to a tree before drawing it. Math (remark-math, KaTeX and the HTML parser
 * KaTeX's output needs: half the worker's code) is handed in by the caller when it has it
 * (markdownMath.ts): the page's parser has it always (markdownParse.ts); the worker loads it the
 * first time a block has a `$`, so starting the worker compiles half as much.
 */
import type { Element, Nodes, Root } from 'hast';
import { urlAttributes } from 'html-url-attributes';
import rehypeHighlight from 'rehype-highlight';
import rehypeSanitize from 'rehype-sanitize';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import remarkRehype from 'remark-rehype';
import { unified } from 'unified';

/** What math takes: the plugins of markdownMath.ts and KaTeX's options. */
export interface MathPlugins {
  remarkMath: unknown;
  remarkMathDollars: unknown;
  rehypeKatex: unknown;
  katexOptions: unknown;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/**
 * Whether `text` is parsed with math: it has a `$` outside closed code fences. (Math does not
 * apply inside code, so the tree is the same either way; this only spares the worker loading
 * math for a shell script.) One pass over the lines, whatever the text.
 */
export function hasMath(text: string): boolean {
  if (!text.includes('$')) return false;
  let fence: string | null = null;
  let dollarInFence = false;
  for (const line of text.split('\n')) {
    const found = FENCE.exec(line);
    const run = found?.[1] ?? '';
    const rest = found?.[2] ?? '';
    if (fence === null) {
      // A backtick fence's info string has no backtick (else the line is inline code).
      if (found && !(run.startsWith('`') && rest.includes('`'))) {
        fence = run;
        dollarInFence = false;
      } else if (line.includes('$')) {
        return true;
      }
    } else if (found && run[0] === fence[0] && run.length >= fence.length && rest.trim() === '') {
      fence = null;
    } else if (line.includes('$')) {
      dollarInFence = true;
    }
  }
  // A fence still open may yet be anything: its text counts.
  return fence !== null && dollarInFence;
}

interface Processor {
  parse(text: string): unknown;
  runSync(tree: unknown, text: string): unknown;
}

// The four pipelines (math or not, highlighted or not), each made on first use: a page whose
// worker parses never pays for their setup.
const processors = new Map<string, Processor>();

function processor(math: MathPlugins | null, highlight: boolean): Processor {
  const key = `${math ? 'm' : ''}${highlight ? 'h' : ''}`;
  let found = processors.get(key);
  if (found) return found;
  // One highlighter for every parse: the plugin's setup registers its languages, and each
  // grammar is compiled on first use, so a fresh one per parse would redo both every update.
  const shared = sharedHighlighter();
  // As react-markdown builds it: remark-parse, the remark plugins, remark-rehype keeping raw HTML
  // (for the sanitiser to remove), the rehype plugins.
  let chain = unified().use(remarkParse).use(remarkGfm) as unknown as Chain;
  if (math) chain = chain.use(math.remarkMath, { singleDollarTextMath: true }).use(math.remarkMathDollars);
  chain = chain.use(remarkRehype, { allowDangerousHtml: true }).use(rehypeSanitize);
  if (math) chain = chain.use(math.rehypeKatex, math.katexOptions);
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
 * A parser of blocks, `(text, highlight) => tree`. `highlight: false` leaves code uncoloured:
 * for code still being written, which would otherwise be highlighted again, whole, on every
 * delta. A block with a `$` is parsed with the math `math()` gives; without any (not loaded),
 * its `$…$` stays text.
 */
export function blockParser(math: () => MathPlugins | null): (text: string, highlight: boolean) => Root {
  return (text, highlight) => {
    const pipeline = processor(hasMath(text) ? math() : null, highlight);
    const tree = pipeline.runSync(pipeline.parse(text), text) as Root;
    finish(tree);
    return tree;
  };
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
