/**
 * Splits Markdown into top-level blocks that render, one by one, exactly as the whole text does,
 * so a streamed answer re-parses only its growing last block (Markdown.tsx).
 *
 * A cut is made only at a run of blank lines, and only where CommonMark could not join what is
 * before and after it:
 * - never inside a fenced code block (``` or ~~~, closed by a fence of the same kind at least as
 *   long) or an HTML block that may hold blank lines (comments, `<pre>`, `<script>`…);
 * - never before an indented line (a list item's next paragraph, indented code);
 * - never before a list item when the block before holds one (the items would form one loose
 *   list);
 * and the whole text stays one block when it defines link references or footnotes, which can be
 * used from anywhere. Doubt means no cut: fewer cuts cost speed, never correctness.
 */

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const LIST_ITEM = /^ {0,3}(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)/;
const DEFINITION = /^ {0,3}\[[^\]\n]+\]:/m;
/** HTML blocks of CommonMark kinds 1–5 run until their end marker, across blank lines. */
const HTML_BLOCKS: ReadonlyArray<readonly [RegExp, RegExp]> = [
  [/^ {0,3}<(?:script|pre|style|textarea)(?:[\s>]|$)/i, /<\/(?:script|pre|style|textarea)>/i],
  [/^ {0,3}<!--/, /-->/],
  [/^ {0,3}<\?/, /\?>/],
  [/^ {0,3}<![A-Za-z]/, />/],
  [/^ {0,3}<!\[CDATA\[/, /\]\]>/],
];

function isBlank(line: string): boolean {
  return /^[ \t]*$/.test(line);
}

function definesReferences(text: string): boolean {
  // The cheap scan first: this runs on every update of a long answer.
  return text.includes(']:') && DEFINITION.test(text);
}

/** The blocks of `text`, in order; joined they give `text` back. */
export function splitBlocks(text: string): string[] {
  return definesReferences(text) ? [text] : cut(text).blocks;
}

export interface Split {
  text: string;
  blocks: string[];
  /** The text ends inside a fenced code block: its code is still being written. */
  openFence: boolean;
}

/**
 * `splitBlocks(text)`, reusing `previous` when `text` only grew from it: its blocks but the last
 * two are kept as they are (the same strings, so a memo compares them at no cost) and only the
 * rest is scanned. The cut before the last block may still go (its first line may be half
 * written, e.g. `1` becoming `1. item`); the cuts before are made by lines already complete.
 */
export function splitGrowing(previous: Split | null, text: string): Split {
  if (!previous || previous.blocks.length < 3 || !text.startsWith(previous.text)) {
    const whole = cut(text);
    return { text, blocks: definesReferences(text) ? [text] : whole.blocks, openFence: whole.openFence };
  }
  const kept = previous.blocks.slice(0, -2);
  let offset = 0;
  for (const block of kept) offset += block.length;
  // Every kept block ends at a cut, outside any fence: the rest is scanned from a clean state.
  const rest = cut(text.slice(offset));
  if (definesReferences(text)) return { text, blocks: [text], openFence: rest.openFence };
  return { text, blocks: kept.concat(rest.blocks), openFence: rest.openFence };
}

/**
 * `text`'s characters in a string of their own. A slice of a string keeps the whole string it
 * was cut from alive (JavaScriptCore and V8 share the characters): a block cut from a streamed
 * answer would keep the whole answer as it was at that update, and the ~1,000 blocks of a 20k-
 * token answer, cut at as many updates, kept ~100 MB of old answers in WebKit's web process.
 * A block is copied once, as it is cut: joined to a character and read whole (which makes the
 * joined string flat, in new memory), then sliced from that. Slicing the joined string without
 * reading it first does not copy: JavaScriptCore slices the part it was joined from.
 */
export function detached(text: string): string {
  if (text.length < 2) return text;
  const joined = ` ${text}`;
  // The search reads it whole; its result is compared (never -2) so that no engine drops it.
  return joined.indexOf('\u0000', 1) === -2 ? text : joined.slice(1);
}

function cut(text: string): { blocks: string[]; openFence: boolean } {
  const blocks: string[] = [];
  let blockStart = 0;
  let blockHasContent = false;
  let blockHasListItem = false;
  /** The open fence (its character and length), or null. */
  let fence: { char: string; length: number } | null = null;
  let htmlEnd: RegExp | null = null;
  let afterBlank = false;
  let pos = 0;
  while (pos < text.length) {
    const newline = text.indexOf('\n', pos);
    const end = newline < 0 ? text.length : newline;
    const line = text.slice(pos, end);
    const next = newline < 0 ? text.length : newline + 1;

    if (fence) {
      const m = FENCE.exec(line);
      if (m?.[1] && m[1][0] === fence.char && m[1].length >= fence.length && isBlank(m[2] ?? '')) fence = null;
    } else if (htmlEnd) {
      if (htmlEnd.test(line)) htmlEnd = null;
    } else if (isBlank(line)) {
      afterBlank = true;
    } else {
      // Any indent may continue a list item (its content starts after the marker, at 2–6).
      const indented = /^[ \t]/.test(line);
      const listItem = LIST_ITEM.test(line);
      if (afterBlank && blockHasContent && !indented && !(listItem && blockHasListItem)) {
        blocks.push(detached(text.slice(blockStart, pos)));
        blockStart = pos;
        blockHasListItem = false;
      }
      afterBlank = false;
      blockHasContent = true;
      if (listItem) blockHasListItem = true;
      const m = FENCE.exec(line);
      // A backtick fence's info string may not hold a backtick (then it is inline code).
      if (m?.[1] && !(m[1][0] === '`' && (m[2] ?? '').includes('`'))) {
        fence = { char: m[1][0] ?? '`', length: m[1].length };
      } else {
        for (const [start, stop] of HTML_BLOCKS) {
          if (start.test(line)) {
            if (!stop.test(line.replace(start, ''))) htmlEnd = stop;
            break;
          }
        }
      }
    }
    pos = next;
  }
  blocks.push(detached(text.slice(blockStart)));
  return { blocks, openFence: fence !== null };
}
