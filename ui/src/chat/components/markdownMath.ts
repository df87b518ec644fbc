/**
 * Math in answers (`$…$`, `$$…$$`) as MathML, which the page draws natively: no KaTeX
 * stylesheet, fonts or inline styles, so the Content-Security-Policy stays as strict as it is.
 * KaTeX runs after the sanitiser (which keeps `language-math` on code), so what it writes is its
 * own markup only. Only blocks with a `$` take the math parser: other text parses as before, and
 * a price like "$5 and $6" stays text (mathDollars.ts). A module of its own: the worker loads it
 * when a block first needs it (markdownPipeline.ts).
 */
import rehypeKatex from 'rehype-katex';
import remarkMath from 'remark-math';
import remarkMathDollars from './mathDollars';
import type { MathPlugins } from './markdownPipeline';

export const MATH: MathPlugins = {
  remarkMath,
  remarkMathDollars,
  rehypeKatex,
  katexOptions: { output: 'mathml', throwOnError: false, strict: 'ignore', trust: false, maxSize: 50, maxExpand: 500 },
};
