/**
 * An answer's parsed tree (hast, markdownPipeline.ts) with each citation of a passage in its text
 * made an element of its own (`CITATION_TAG`, the citation as written in `dataCitation`), which
 * the answer draws as a chip (CitationChip.tsx). Code (inline or a block), links, math and
 * anything the sanitiser could have left as markup are never looked into. The tree given is not
 * changed (it is the parse cache's): the parts that change are copies, the rest is shared.
 */
import type { Element, ElementContent, Root, RootContent } from 'hast';
import { findCitations } from './parse';

/** The element a citation becomes: no HTML element has this name. */
export const CITATION_TAG = 'tessera-citation';

/** Elements whose text is never a citation: code, links, math, and what is not prose. */
const SKIPPED = new Set(['code', 'pre', 'kbd', 'samp', 'a', 'math', 'svg', 'script', 'style', 'textarea', CITATION_TAG]);

function skipped(node: Element): boolean {
  if (SKIPPED.has(node.tagName)) return true;
  const classes = node.properties.className;
  // KaTeX's markup (math as HTML, its annotations).
  return Array.isArray(classes) && classes.some((c) => typeof c === 'string' && c.startsWith('katex'));
}

/** The text `value` cut around its citations, or null when it has none. */
function splitText(value: string): ElementContent[] | null {
  const found = findCitations(value);
  if (found.length === 0) return null;
  const out: ElementContent[] = [];
  let at = 0;
  for (const { index, length, citation } of found) {
    if (index > at) out.push({ type: 'text', value: value.slice(at, index) });
    out.push({
      type: 'element',
      tagName: CITATION_TAG,
      properties: { dataCitation: citation.raw },
      children: [{ type: 'text', value: citation.raw }],
    });
    at = index + length;
  }
  if (at < value.length) out.push({ type: 'text', value: value.slice(at) });
  return out;
}

/** `children` with their citations marked; the same array when none was. */
function markChildren<T extends RootContent | ElementContent>(children: T[]): T[] {
  let out: T[] | null = null;
  for (let i = 0; i < children.length; i++) {
    const child = children[i] as T;
    let replaced: T[] | null = null;
    if (child.type === 'text') {
      replaced = splitText(child.value) as T[] | null;
    } else if (child.type === 'element' && !skipped(child)) {
      const marked = markChildren(child.children);
      if (marked !== child.children) replaced = [{ ...child, children: marked }];
    }
    if (replaced) {
      out ??= children.slice(0, i);
      out.push(...replaced);
    } else if (out) {
      out.push(child);
    }
  }
  return out ?? children;
}

/** `tree` with its citations marked; the same tree when it has none. */
export function markCitations(tree: Root): Root {
  const children = markChildren(tree.children);
  return children === tree.children ? tree : { ...tree, children };
}

/** Whether a tree has any citation marked (for a test, or a caller that wants to know). */
export function hasMarkedCitation(node: Root | ElementContent): boolean {
  if (node.type === 'element' && node.tagName === CITATION_TAG) return true;
  return 'children' in node && node.children.some((child) => hasMarkedCitation(child as ElementContent));
}
