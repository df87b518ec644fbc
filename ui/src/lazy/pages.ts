/**
 * The parts of the UI that are not on screen when the app starts, each in a chunk of its own:
 * the conversation pane (Markdown, highlighting, tool cards, forms, the inspector) and the
 * settings page. Loading them later keeps start-up and an idle window lighter; `preload…`
 * fetches and runs a chunk ahead of need (the person started typing), so it is there by the
 * time it is shown.
 */
import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import { prestartMarkdownWorker } from '../chat/components/markdownWorkerStart';

/**
 * `React.lazy` that renders at once when its chunk is already loaded (preloaded). A plain lazy
 * calls its loader on its first render and waits for the promise even when the module is
 * there; that wait shows the fallback, and React then holds the content back until 300 ms after
 * the fallback appeared (its throttle of Suspense reveals): the first conversation opened took
 * 300 ms more than the next. Here the loader hands React a thenable that settles as it is
 * subscribed to, so the first render has the module.
 */
// `any`: React's own bound for what `lazy` takes (a component of whatever props).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function preloadable<M extends { default: ComponentType<any> }>(load: () => Promise<M>) {
  let loaded: M | null = null;
  let loading: Promise<M> | null = null;
  const preload = (): Promise<M> => {
    loading ??= load().then(
      (module) => (loaded = module),
      (error: unknown) => {
        loading = null; // A chunk that failed to load is tried again next time.
        throw error;
      },
    );
    return loading;
  };
  const factory = (): PromiseLike<M> => {
    const module = loaded;
    if (!module) return preload();
    const settled: PromiseLike<M> = {
      then: (resolve) => {
        resolve?.(module);
        return settled as never;
      },
    };
    return settled;
  };
  const component: LazyExoticComponent<M['default']> = lazy(factory as () => Promise<M>);
  return { component, preload };
}

const pane = preloadable(() => import('../chat/ConversationPane'));
const settings = preloadable(() => import('../settings/SettingsPage').then((m) => ({ default: m.SettingsPage })));

export const ConversationPane = pane.component;
export const SettingsPage = settings.component;
const loadConversationPane = pane.preload;

/** Once per page: the modules stay loaded. */
let paneRequested = false;

/**
 * Starts the markdown worker (it compiles on its own thread meanwhile), then loads the
 * conversation pane and readies its Markdown renderer while the person is still writing
 * (chat/components/warmUp.tsx); a failure shows when the pane is rendered.
 */
export function preloadConversationPane(): void {
  if (paneRequested) return;
  paneRequested = true;
  prestartMarkdownWorker();
  let chain: Promise<unknown> = Promise.resolve();
  for (const load of PANE_LIBRARIES) chain = chain.then(load).then(nextTask);
  chain
    .then(loadConversationPane)
    .then((pane) => pane.warmUpMarkdown())
    .catch(() => undefined);
}

/**
 * The pane's large libraries, each a chunk of its own, run one per task before the pane: run
 * together (~380 KB) they held the page for 50–90 ms on the first key the person typed.
 */
// What the page's Markdown fallback and drawing load (markdownParse.ts, Markdown.tsx); the
// worker loads its own copy.
const PANE_LIBRARIES: (() => Promise<unknown>)[] = [
  () => import('remark-parse'),
  () => import('remark-rehype'),
  () => import('hast-util-to-jsx-runtime'),
  () => import('remark-gfm'),
  () => import('rehype-sanitize'),
  () => import('rehype-highlight'),
];

function nextTask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
