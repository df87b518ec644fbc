/**
 * `$…$` read as math the way Pandoc reads it, so money stays money: the opening `$` has a
 * non-space character right after it, the closing one a non-space character right before it and
 * no digit right after it. remark-math takes any pair; this remark plugin turns the pairs that
 * fail those rules back into the text they were ("It costs $5, or $6" is not a formula).
 */
interface Node {
  type: string;
  value?: string;
  children?: Node[];
  position?: { start: { offset?: number }; end: { offset?: number } };
}

function isSpace(c: string | undefined): boolean {
  return c === undefined || /\s/.test(c);
}

/** The pair at `start..end` of `source` (both `$` included) is math as Pandoc reads it. */
export function dollarsAreMath(source: string, start: number, end: number): boolean {
  if (source[start + 1] === '$') return true; // `$$…$$` written inline: meant as math
  const inner = source.slice(start + 1, end - 1);
  if (inner.length === 0 || isSpace(inner[0]) || isSpace(inner[inner.length - 1])) return false;
  return !/[0-9]/.test(source[end] ?? '');
}

function mend(node: Node, source: string): void {
  const children = node.children;
  if (!children) return;
  for (let i = 0; i < children.length; i++) {
    const child = children[i]!;
    const start = child.position?.start.offset;
    const end = child.position?.end.offset;
    if (child.type === 'inlineMath' && start !== undefined && end !== undefined && !dollarsAreMath(source, start, end)) {
      children[i] = { type: 'text', value: source.slice(start, end) };
    } else {
      mend(child, source);
    }
  }
}

export default function remarkMathDollars() {
  return (tree: Node, file: { value: unknown }) => {
    mend(tree, String(file.value));
  };
}
