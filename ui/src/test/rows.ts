/**
 * Rows the fake engines of the tests answer with: a conversation of the sidebar's list and a
 * project, with every field the generated types require, each overridable.
 */
import type { Project } from '../generated/Project';
import type { ConversationSummary } from '../transport/client';

const WHEN = '2026-11-20T10:00:00.000Z';

export function conversationRow(id: string, title: string, extra: Partial<ConversationSummary> = {}): ConversationSummary {
  return {
    id,
    title,
    created_at: WHEN,
    updated_at: WHEN,
    pinned: false,
    archived: false,
    active_leaf_id: null,
    locale: null,
    actor: null,
    project_id: null,
    message_count: 2,
    waits_for_person: false,
    ...extra,
  };
}

export function projectRow(id: string, name: string, extra: Partial<Project> = {}): Project {
  return { id, name, instructions: '', model: null, sources: [], conversations: 0, created_at: WHEN, updated_at: WHEN, ...extra };
}
