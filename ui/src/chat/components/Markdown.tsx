import type { Root } from 'hast';
import { toJsxRuntime } from 'hast-util-to-jsx-runtime';
import { memo, useContext, useEffect, useLayoutEffect, useMemo, useRef, useState, type ComponentPropsWithoutRef, type ReactElement, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { Components } from 'react-markdown';
import { Fragment, jsx, jsxs } from 'react/jsx-runtime';
import { copyText } from '../../components/clipboard';
import { AnswerLink } from './AnswerLink';
import { CitationChip } from '../citations/CitationChip';
import { CitationsMarked } from '../citations/CitationScope';
import { CITATION_TAG, markCitations } from '../citations/markCitations';
import { markdownClient, type Parsed } from './markdownClient';
import { splitGrowing } from './markdownBlocks';
import { useBlockWindow, type BlockChanges } from './useBlockWindow';
import './markdownPending.css';

/** The language a fenced block names (`language-rust` on its code element), if any. */
function languageOf(node: unknown): string | null {
  const code = (node as { children?: { properties?: { className?: unknown } }[] } | undefined)?.children?.[0];
  const classes = code?.properties?.className;
  const list = Array.isArray(classes) ? classes : [];
  for (const c of list) {
    if (typeof c === 'string' && c.startsWith('language-')) return c.slice('language-'.length);
  }
  return null;
}

/**
 * A code block under a bar with its language and a copy button (the text as written, not the
 * highlighted markup): the button never covers the code's first line.
 */
function CodeBlock({ language, ...props }: ComponentPropsWithoutRef<'pre'> & { language: string | null }) {
  const { t } = useTranslation();
  const ref = useRef<HTMLPreElement | null>(null);
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await copyText(ref.current?.textContent ?? '');
      setState('copied');
    } catch {
      setState('failed');
    }
    window.setTimeout(() => setState('idle'), 2000);
  };
  const label = state === 'copied' ? t('chat.copied') : state === 'failed' ? t('chat.copyFailed') : t('chat.copy');
  return (
    <div className="code-block">
      <div className="code-block-bar">
        <span className="code-language" data-testid="code-language">
          {language ?? t('chat.codeLabel')}
        </span>
        <button type="button" className="button code-copy" onClick={() => void copy()} aria-label={t('chat.copy')} data-testid="copy-code">
          {label}
        </button>
      </div>
      <pre ref={ref} {...props} />
    </div>
  );
}

// Typed as react-markdown types them: hast-util-to-jsx-runtime's own types name the global `JSX`
// namespace, which React 19's types no longer declare.
// A citation marked in an answer (markCitations.ts) is drawn as a chip; its tag is no HTML one.
const components = {
  pre: ({ node, ...props }) => <CodeBlock language={languageOf(node)} {...props} />,
  a: ({ node: _node, ...props }) => <AnswerLink {...props} />,
  [CITATION_TAG]: ({ node }: { node?: { properties?: { dataCitation?: unknown } } }) => {
    const raw = node?.properties?.dataCitation;
    return <CitationChip raw={typeof raw === 'string' ? raw : ''} />;
  },
} as Components;

/** A parsed block's tree as React elements, as react-markdown draws it. */
function draw(tree: Root): ReactElement {
  return toJsxRuntime(tree, { Fragment, components, ignoreInvalidStyle: true, jsx, jsxs, passKeys: true, passNode: true }) as ReactElement;
}

/** Each block on the page has its own number, whatever its text: the worker's requests name it. */
let blocks = 0;

/**
 * Markdown parsed in one piece (one top-level block here), by the markdown worker
 * (markdownClient.ts, markdownParse.ts): GFM, math as MathML, sanitised with GitHub's schema,
 * then code highlighted. A text already parsed is drawn from the cache at once; a new one is
 * parsed off the page's thread, the block showing what it showed until the tree comes (or, never
 * parsed yet, its text as it is). `highlight: false` leaves code uncoloured: for code still being
 * written, which would otherwise be highlighted again, whole, on every delta.
 */
export const MarkdownBlock = memo(function MarkdownBlock({ text, highlight = true, changes }: { text: string; highlight?: boolean; changes?: BlockChanges | undefined }) {
  const client = markdownClient();
  const [id] = useState(() => ++blocks);
  /** The parse on the page: the latest one known of this block's text. */
  const [shown, setShown] = useState<Parsed | null>(null);
  // This text's parse, if known; or else the latest one the worker sent for this block, drawn
  // now with the rest of the update rather than in a render of its own.
  const ready = client.get(text, highlight) ?? client.heldFor(id);
  if (ready !== undefined && ready !== shown) setShown(ready);
  const current = ready ?? shown;
  // In an answer (CitationScope.tsx) its citations of passages are drawn as chips.
  const citations = useContext(CitationsMarked);
  const drawn = useMemo(() => (current && 'tree' in current ? draw(citations ? markCitations(current.tree) : current.tree) : null), [current, citations]);
  // A long answer drawn in part keeps the view where it is as blocks change height
  // (useBlockWindow.ts): told once this block has changed the page. (Before it does, it is told by
  // the parse delivered below, or by the answer's render for a new text.)
  useLayoutEffect(() => {
    changes?.after();
  }, [changes, current, text]);
  useEffect(() => {
    if (current) client.release(id, current);
  }, [client, id, current]);

  const before = useRef<{ text: string; highlight: boolean } | null>(null);
  useEffect(() => {
    const last = before.current;
    before.current = { text, highlight };
    // A block that grew will not show its earlier text again: its parse need not stay cached.
    if (last && last.text !== text && text.startsWith(last.text)) client.forget(last.text, last.highlight);
    if (client.has(text, highlight)) client.cancel(id);
    else
      client.request(id, text, highlight, (parsed) => {
        changes?.before();
        setShown(parsed);
      });
  }, [client, id, text, highlight, changes]);
  useEffect(() => () => client.cancel(id), [client, id]);

  if (drawn !== null) return drawn;
  // Not parsed yet (or it could not be): the text as written, in about the height it will take.
  // Blank text draws as nothing, parsed or not.
  const written = text.trim();
  return written === '' ? null : <p className="markdown-pending">{written}</p>;
});

/** Blocks per group: a streamed delta re-renders the group of the block it grows, not the answer. */
const GROUP = 32;

interface GroupProps {
  blocks: readonly string[];
  /** Index of the group's first block in the answer (none before it has a newline). */
  first: number;
  /** The group's last block is code still being written. */
  openLast: boolean;
  /** The element's ref (useBlockWindow.ts watches it). */
  watch: (el: HTMLElement | null) => (() => void) | undefined;
  /** What its blocks say of their changes (useBlockWindow.ts). */
  changes: BlockChanges;
}

/**
 * Blocks `first…first+GROUP`, in an element of their own: always the same blocks, so no block's
 * component ever moves to another group (which would parse it again). A group whose blocks are
 * the same strings as before is not rendered again: a long answer costs one group's worth of
 * elements per update. The element bounds the page's layout work too: WebKit lays a changed
 * block's parent out by walking all its children, and a 20k-token answer has ~1,000 blocks (a
 * word added to its last paragraph: 4.7 ms of the page's CPU with the blocks side by side, 3.7 ms
 * in groups, measured in the desktop app under Xvfb).
 */
const BlockGroup = memo(
  function BlockGroup({ blocks, first, openLast, watch, changes }: GroupProps) {
    const last = blocks.length - 1;
    return (
      <div className="markdown-group" data-group={first / GROUP} ref={watch}>
        {blocks.map((block, i) => (
          <Fragment key={i}>
            {first + i > 0 && '\n'}
            <MarkdownBlock text={block} highlight={!(i === last && openLast)} changes={changes} />
          </Fragment>
        ))}
      </div>
    );
  },
  (a, b) => a.first === b.first && a.openLast === b.openLast && a.watch === b.watch && a.changes === b.changes && a.blocks.length === b.blocks.length && a.blocks.every((block, i) => block === b.blocks[i]),
);

/**
 * Assistant text as Markdown (GFM tables, task lists…). Raw HTML is not rendered and the tree is
 * sanitised (GitHub's schema) before code is highlighted, so nothing a model writes can run.
 *
 * The text is rendered block by block (markdownBlocks.ts): while an answer streams only its
 * last block changes, so a long answer costs one small parse per update, not a whole one, made
 * off the page's thread (MarkdownBlock), the page only drawing the tree that comes back. The
 * newline between blocks is the one a whole rendering puts between top-level elements. A code
 * block whose closing fence has not come yet is coloured once it comes.
 *
 * A long answer (more than `WINDOW_ABOVE_GROUPS` groups, blockWindow.ts) in the log is drawn in part
 * (useBlockWindow.ts): the groups near the log's view are in the page, spacers of their height
 * stand for the others, and a group coming back is drawn from the parse cache.
 */
export function Markdown({ text }: { text: string }) {
  // The last split is kept from render to render: a grown text is cut again from its last blocks only.
  const [kept, setKept] = useState(() => splitGrowing(null, text));
  let split = kept;
  if (kept.text !== text) {
    split = splitGrowing(kept, text);
    setKept(split);
  }
  const blocksOf: string[][] = [];
  for (let first = 0; first < split.blocks.length; first += GROUP) blocksOf.push(split.blocks.slice(first, first + GROUP));
  // A long answer is drawn in part: the groups near the log's view.
  const { isIn, spacerHeight, container, watch, blocks: changes } = useBlockWindow(blocksOf);
  const groups: ReactNode[] = blocksOf.map((blocks, i) => {
    const first = i * GROUP;
    if (!isIn(i)) {
      return <div key={`spacer-${first}`} className="markdown-spacer" data-group={i} aria-hidden="true" ref={watch} style={{ height: spacerHeight(i) }} />;
    }
    const openLast = split.openFence && first + blocks.length === split.blocks.length;
    return <BlockGroup key={first} blocks={blocks} first={first} openLast={openLast} watch={watch} changes={changes} />;
  });
  return (
    <div className="markdown" ref={container}>
      {groups}
    </div>
  );
}
