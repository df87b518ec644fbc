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

/**
 * Starts loading the conversation pane, then readies its Markdown renderer while the person is
 * still writing (chat/components/warmUp.tsx); a failure shows when the pane is rendered.
 */
export function preloadConversationPane(): void {
  loadConversationPane()
    .then((pane) => pane.warmUpMarkdown())
    .catch(() => undefined);
}
