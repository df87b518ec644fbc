import type { ConversationSummary } from '../transport/client';
import type { Project } from './api';

export interface ProjectGroup<Row> {
  /** The project's id; null for the conversations in none. */
  id: string | null;
  project: Project | null;
  rows: Row[];
}

/**
 * The rows by project, in the projects' order (by name, as the engine lists them): a group for
 * each project that has rows or is in `alwaysShown` (just created), then one whose id is
 * unknown (the project list could not be read), then the rows in no project. Rows keep their
 * order within a group.
 */
export function groupByProject<Row extends Pick<ConversationSummary, 'project_id'>>(rows: Row[], projects: Project[], alwaysShown: ReadonlySet<string> = new Set()): ProjectGroup<Row>[] {
  const byId = new Map<string, Row[]>();
  const none: Row[] = [];
  for (const row of rows) {
    if (row.project_id === null) none.push(row);
    else byId.set(row.project_id, [...(byId.get(row.project_id) ?? []), row]);
  }
  const groups: ProjectGroup<Row>[] = [];
  for (const project of projects) {
    const mine = byId.get(project.id) ?? [];
    byId.delete(project.id);
    if (mine.length > 0 || alwaysShown.has(project.id)) groups.push({ id: project.id, project, rows: mine });
  }
  for (const [id, mine] of byId) groups.push({ id, project: null, rows: mine });
  groups.push({ id: null, project: null, rows: none });
  return groups;
}
