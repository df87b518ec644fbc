/**
 * The markdown worker: parses the blocks of answers off the page's thread (markdownService.ts
 * says how; markdownClient.ts starts it). One of it for the page, so its highlighter, grammars
 * and compiled parser serve every block. Math is a chunk of its own, loaded the first time a
 * block has a `$`: it is half the worker's code, and a worker that starts without it is ready
 * in half the time (the first open of a conversation waits for it).
 */
import type { MathPlugins } from './markdownPipeline';
import { blockParser, hasMath } from './markdownPipeline';
import { createMarkdownService, type MarkdownReply, type MarkdownRequest } from './markdownService';

const scope = self as unknown as {
  postMessage(message: MarkdownReply[]): void;
  onmessage: ((event: MessageEvent<MarkdownRequest>) => void) | null;
};

let math: MathPlugins | null = null;
/** Loading math; null before the first `$` and once it has loaded or failed (then `$…$` stays text). */
let mathLoading: Promise<unknown> | null = null;
let mathTried = false;

/** What `text` waits for before it is parsed: math, while it loads, if the text may have any. */
export function prepare(text: string): Promise<unknown> | null {
  if (!hasMath(text)) return null;
  if (!mathTried) {
    mathTried = true;
    mathLoading = import('./markdownMath')
      .then((module) => {
        math = module.MATH;
      })
      .finally(() => {
        mathLoading = null;
      });
  }
  return mathLoading;
}

const parseMarkdownBlock = blockParser(() => math);

const service = createMarkdownService((replies) => scope.postMessage(replies), {
  parse: parseMarkdownBlock,
  prepare,
});

scope.onmessage = (event) => service.receive(event.data);

/**
 * One of each thing an answer is made of, and code in the languages answers use most: the first
 * parse of each compiles the parser's functions and the language's grammar (60–120 ms in all),
 * done here as the worker starts (the page starts it when the person starts writing), not on
 * the first answer.
 */
const WARM_UP = [
  '# Title\n\nText with *emphasis*, **strong**, `code`, ~~struck~~ and a [link](https://example.com).\n\n- one\n  1. nested\n\n> quoted\n\n| a | b |\n| --- | :-: |\n| 1 | 2 |\n\n- [ ] task',
  '```python\ndef f(x: int) -> str:\n    return f"{x}"  # note\n```\n\n```typescript\nconst a: number[] = [1, 2];\nexport function f() { return a.map((x) => x * 2); }\n```\n\n```bash\nfor f in *.txt; do echo "$f"; done\n```\n\n```rust\nfn main() { let v: Vec<u8> = vec![1]; println!("{v:?}"); }\n```\n\n```json\n{ "a": [1, true, null] }\n```',
];

setTimeout(() => {
  for (const text of WARM_UP) {
    try {
      parseMarkdownBlock(text, true);
    } catch {
      // A block that fails says so when it is asked for.
    }
  }
}, 0);
