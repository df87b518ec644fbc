/**
 * The parts of the UI that are not on screen when the app starts, each in a chunk of its own:
 * the conversation pane (Markdown, highlighting, tool cards, forms, the inspector) and the
 * settings page. Loading them later keeps start-up and an idle window lighter; `preload…`
 * fetches and runs a chunk ahead of need (the person started typing), so it is there by the
 * time it is shown.
 */
import { lazy } from 'react';

const loadConversationPane = () => import('../chat/ConversationPane');
const loadSettingsPage = () => import('../settings/SettingsPage').then((m) => ({ default: m.SettingsPage }));

export const ConversationPane = lazy(loadConversationPane);
export const SettingsPage = lazy(loadSettingsPage);

/** Once per page: the modules stay loaded. */
let paneRequested = false;

/**
 * Starts loading the conversation pane, then readies its Markdown renderer while the person is
 * still writing (chat/components/warmUp.tsx); a failure shows when the pane is rendered.
 */
export function preloadConversationPane(): void {
  if (paneRequested) return;
  paneRequested = true;
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
