/**
 * One top-level Markdown block (markdownBlocks.ts) to a hast tree, ready to be drawn: parsed with
 * GFM (and math when the block has a `$`), sanitised with GitHub's schema, then highlighted and
 * math drawn as MathML, then put through what react-markdown does to a tree before drawing it
 * (raw HTML left as text, URLs through its `defaultUrlTransform`). Its output is plain data
 * (structured-clone safe, no positions): the markdown worker (markdownWorker.ts) runs it off the
 * page's thread, and the page runs the very same function itself when no worker can start
 * (markdownClient.ts). Markdown.tsx draws the tree (hastRender.tsx).
 */
import { MATH } from './markdownMath';
import { blockParser } from './markdownPipeline';

export { defaultUrlTransform } from './markdownPipeline';

/** The tree `text` draws as, math included (markdownPipeline.ts says how). */
export const parseMarkdownBlock = blockParser(() => MATH);
