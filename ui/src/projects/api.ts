/**
 * The project and knowledge endpoints of `/v1` (docs/api.md, "Projects and knowledge"), over
 * the app's client so they go the same way as the chat (HTTP in a browser, IPC in the shell).
 */
import type { TFunction } from 'i18next';
import type { ErrorCode } from '../generated/ErrorCode';
import type { ConversationProjectBody } from '../generated/ConversationProjectBody';
import type { KnowledgeAdded } from '../generated/KnowledgeAdded';
import type { KnowledgeEmbedding } from '../generated/KnowledgeEmbedding';
import type { KnowledgeSourceBody } from '../generated/KnowledgeSourceBody';
import type { KnowledgeStatus } from '../generated/KnowledgeStatus';
import type { NewProjectBody } from '../generated/NewProjectBody';
import type { Project } from '../generated/Project';
import type { ProjectDetail } from '../generated/ProjectDetail';
import type { ProjectEdit } from '../generated/ProjectEdit';
import type { ProjectList } from '../generated/ProjectList';
import { ApiError, type TesseraClient } from '../transport/client';
import { describeError } from '../transport/describeError';
import { routes } from '../transport/routes';

export type { KnowledgeEmbedding, KnowledgeStatus, Project, ProjectDetail };

/** What a PATCH may change; a field left out stays (the model is not edited here). */
export type ProjectChange = Pick<Partial<ProjectEdit>, 'name' | 'instructions'>;

export class ProjectsApi {
  constructor(private readonly client: TesseraClient) {}

  static of(client: TesseraClient): ProjectsApi {
    return new ProjectsApi(client);
  }

  async list(): Promise<Project[]> {
    const body = await this.client.json<ProjectList>({ method: 'GET', path: routes.projects() });
    return body.projects;
  }

  create(body: NewProjectBody): Promise<Project> {
    return this.client.json({ method: 'POST', path: routes.projects(), body });
  }

  /** The project and the state of its index; `project` is its id or its name. */
  detail(project: string): Promise<ProjectDetail> {
    return this.client.json({ method: 'GET', path: routes.project(project) });
  }

  edit(project: string, change: ProjectChange): Promise<Project> {
    return this.client.json({ method: 'PATCH', path: routes.project(project), body: change });
  }

  /** Removes the project and its index; its conversations stay, in no project. */
  async remove(project: string): Promise<void> {
    await this.client.json({ method: 'DELETE', path: routes.project(project) });
  }

  /** Adds a folder or file by its absolute path and queues its scan. */
  addSource(project: string, path: string): Promise<KnowledgeAdded> {
    const body: KnowledgeSourceBody = { path };
    return this.client.json({ method: 'POST', path: routes.projectKnowledge(project), body });
  }

  async removeSource(project: string, path: string): Promise<void> {
    await this.client.json({ method: 'DELETE', path: routes.projectKnowledge(project, { path }) });
  }

  /** Stops reading files (search still works) until resumed; the same for every project. */
  async pause(): Promise<void> {
    await this.client.json({ method: 'POST', path: routes.knowledgePause() });
  }

  async resume(): Promise<void> {
    await this.client.json({ method: 'POST', path: routes.knowledgeResume() });
  }

  /** The model that embeds the files (search by meaning), or null for words alone. */
  async setEmbedding(choice: KnowledgeEmbedding | null): Promise<void> {
    await this.client.json({ method: 'PUT', path: routes.setting('knowledge_embedding'), body: { value: choice } });
  }

  /** Moves a conversation into a project (its id or name), or out of any with null. */
  async moveConversation(conversationId: string, project: string | null): Promise<void> {
    const body: ConversationProjectBody = { project };
    await this.client.json({ method: 'PUT', path: routes.conversationProject(conversationId), body });
  }
}

/** The codes a project call may answer that the UI says in the person's language. */
const KNOWN = ['INVALID_PROJECT', 'INVALID_KNOWLEDGE_SOURCE', 'KNOWLEDGE_UNAVAILABLE', 'ALREADY_EXISTS', 'NOT_FOUND'] as const satisfies readonly ErrorCode[];
type KnownCode = (typeof KNOWN)[number];

function isKnown(code: string): code is KnownCode {
  return (KNOWN as readonly string[]).includes(code);
}

/**
 * A failed project call in words: for a code the UI knows, its sentence in the person's
 * language with the engine's own words after it (they say which field, or which path);
 * anything else as `describeError` puts it.
 */
export function projectErrorText(t: TFunction, error: unknown): string {
  if (error instanceof ApiError && isKnown(error.code)) {
    return t('projectErrors.withDetail', { what: t(`projectErrors.${error.code}`), detail: error.message });
  }
  return describeError(error);
}
