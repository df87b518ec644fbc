/**
 * Starting the markdown worker (markdownWorker.ts). Its code is compiled and run before it
 * answers (a few hundred milliseconds on a slow machine), so the page starts it as soon as the
 * person shows they are about to open a conversation or write (`prestartMarkdownWorker`, from
 * lazy/pages.ts: the pointer on the conversation list, a key typed), and the conversation pane's
 * client takes that one (`takeMarkdownWorker`) instead of starting its own on the first block.
 * A small module of its own: the page's first chunk imports it without the pane's code.
 */

/** The worker as markdownClient.ts uses it. */
export type StartedWorker = Worker;

function startWorker(): StartedWorker | null {
  if (typeof Worker === 'undefined') return null;
  // Same-origin, built by Vite beside the page's scripts: the Content-Security-Policy allows it.
  return new Worker(new URL('./markdownWorker.ts', import.meta.url), { type: 'module', name: 'markdown' });
}

let early: { worker: StartedWorker; failed: boolean } | null = null;
let taken = false;

/** Starts the worker ahead of need, once; nothing if the pane's client has one already. */
export function prestartMarkdownWorker(): void {
  if (early || taken) return;
  let worker: StartedWorker | null = null;
  try {
    worker = startWorker();
  } catch {
    return; // The client will find out for itself, and parse on the page.
  }
  if (!worker) return;
  const started = { worker, failed: false };
  // Failing before the client took it: the client is told by `takeMarkdownWorker` instead.
  worker.addEventListener('error', () => {
    started.failed = true;
  });
  early = started;
}

/**
 * The worker for the pane's client: the one started ahead if it is still sound, else a new one
 * (null where there can be none, or the one started ahead failed to load).
 */
export function takeMarkdownWorker(): StartedWorker | null {
  taken = true;
  const ahead = early;
  early = null;
  if (!ahead) return startWorker();
  if (ahead.failed) {
    ahead.worker.terminate();
    return null;
  }
  return ahead.worker;
}
