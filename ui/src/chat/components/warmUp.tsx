import { createRoot, type Root } from 'react-dom/client';
import { MarkdownBlock } from './Markdown';

/**
 * One of each thing an answer is made of, and code in the languages answers use most. The
 * first time the page parses, lays out or colours each of them costs far more than any later
 * time (the JavaScript engine compiles the parser's functions as they are first called, a
 * grammar is compiled when first used): 60–120 ms at the start of the first answer.
 */
const SAMPLES = [
  '# Title\n\nText with *emphasis*, **strong**, `code`, ~~struck~~ and a [link](https://example.com).',
  '- one\n- two\n  1. nested\n\n> quoted',
  '| a | b |\n| --- | :-: |\n| 1 | 2 |\n\n- [ ] task',
  '```python\ndef f(x: int) -> str:\n    return f"{x}"  # note\n```',
  '```typescript\nconst a: number[] = [1, 2];\nexport function f() { return a.map((x) => x * 2); }\n```',
  '```bash\nfor f in *.txt; do echo "$f"; done\n```',
  '```rust\nfn main() { let v: Vec<u8> = vec![1]; println!("{v:?}"); }\n```',
  '```json\n{ "a": [1, true, null] }\n```',
];

/** Pause between samples: each is its own short task, and the page stays responsive. */
const STEP_MS = 40;

let started = false;

/**
 * Renders each sample once, off the page, in its own task (called when the conversation pane
 * is loaded, i.e. once the person starts writing): the first answer then streams without those
 * first-time costs. Nothing is added to the page; the samples are dropped at the end.
 */
export function warmUpMarkdown(): void {
  if (started || typeof document === 'undefined') return;
  started = true;
  const root = createRoot(document.createElement('div'));
  const queue = [...SAMPLES];
  const step = () => {
    const text = queue.shift();
    // The page can be gone before the last sample (a window closing, a test's document torn
    // down): warming is only a head start, so it stops quietly rather than throw from a timer.
    if (text === undefined || typeof window === 'undefined' || typeof document === 'undefined') {
      stop(root);
      return;
    }
    try {
      root.render(<MarkdownBlock text={text} />);
    } catch {
      stop(root);
      return;
    }
    setTimeout(step, STEP_MS);
  };
  setTimeout(step, STEP_MS);
}

function stop(root: Root): void {
  try {
    root.unmount();
  } catch {
    // Nothing of it is on the page; a root that cannot unmount is dropped with its page.
  }
}
