/**
 * The one place the UI writes an API path. Every call builds its path here, and
 * `routePatterns` names the route of the Rust router each builder stands for, so
 * scripts/check-ui-routes.py (make test-generated) fails when the router drops or renames a
 * route the UI still calls, and when a path is written anywhere else in src/.
 */
import type { ExportFormat } from '../generated/ExportFormat';
import type { MemoryScope } from '../generated/MemoryScope';
import type { SettingValues } from '../generated/SettingValues';

const enc = encodeURIComponent;

/**
 * `path?k=v&…` with each key and value through encodeURIComponent, skipping absent values, and
 * no `?` when none is left. Not URLSearchParams: it writes a space as `+` and escapes `!'()~`,
 * which would change the strings the UI has always sent (and the fake engines in the tests
 * match).
 */
function withQuery(path: string, query: Record<string, string | number | undefined> = {}): string {
  const pairs = Object.entries(query).flatMap(([key, value]) => {
    if (value === undefined) return [];
    // Numbers unescaped, as the UI always sent them (`1e+21` keeps its `+`).
    return [`${enc(key)}=${typeof value === 'number' ? String(value) : enc(value)}`];
  });
  return pairs.length > 0 ? `${path}?${pairs.join('&')}` : path;
}

export const routes = {
  /** Without a query, the conversations the sidebar lists; with one, a search. */
  conversations: (query?: { archived?: 'all' | undefined; q?: string | undefined }) => withQuery('/v1/conversations', query),
  conversation: (id: string) => `/v1/conversations/${enc(id)}`,
  conversationExport: (id: string, format: ExportFormat) => withQuery(`/v1/conversations/${enc(id)}/export`, { format }),
  conversationImport: () => '/v1/conversations/import',
  conversationBranch: (id: string) => `/v1/conversations/${enc(id)}/branch`,
  conversationRegenerate: (id: string) => `/v1/conversations/${enc(id)}/regenerate`,
  conversationEvents: (id: string) => `/v1/conversations/${enc(id)}/events`,
  conversationMcpResources: (id: string) => `/v1/conversations/${enc(id)}/mcp-resources`,
  messages: () => '/v1/messages',
  runCancel: (id: string) => `/v1/runs/${enc(id)}/cancel`,
  runContext: (id: string) => `/v1/runs/${enc(id)}/context`,
  interactions: (query: { conversation_id: string }) => withQuery('/v1/interactions', query),
  interaction: (id: string) => `/v1/interactions/${enc(id)}`,
  attachment: (sha256: string) => `/v1/attachments/${enc(sha256)}`,
  grants: (query?: { include_revoked?: 'true' | undefined }) => withQuery('/v1/grants', query),
  grant: (id: string) => `/v1/grants/${enc(id)}`,
  providers: () => '/v1/providers',
  localProviders: () => '/v1/local-providers',
  localModels: () => '/v1/local-models',
  localDownloads: () => '/v1/local-models/downloads',
  localDownload: (file: string) => `/v1/local-models/downloads/${enc(file)}`,
  localDownloadPause: (file: string) => `/v1/local-models/downloads/${enc(file)}/pause`,
  localDownloadResume: (file: string) => `/v1/local-models/downloads/${enc(file)}/resume`,
  localFile: (file: string) => `/v1/local-models/files/${enc(file)}`,
  localFileDefault: (file: string) => `/v1/local-models/files/${enc(file)}/default`,
  localWorkerStop: () => '/v1/local-models/worker/stop',
  localImport: () => '/v1/local-models/import',
  localContext: () => '/v1/local-models/context',
  provider: (name: string) => `/v1/providers/${enc(name)}`,
  providerKey: (name: string) => `/v1/providers/${enc(name)}/key`,
  providerDefault: (name: string) => `/v1/providers/${enc(name)}/default`,
  providerModels: (name: string) => `/v1/providers/${enc(name)}/models`,
  providerImages: (name: string, model: string) => `/v1/providers/${enc(name)}/images?model=${enc(model)}`,
  providerCheck: (name: string) => `/v1/providers/${enc(name)}/check`,
  secretStore: () => '/v1/secrets/store',
  settings: () => '/v1/settings',
  setting: (key: keyof SettingValues) => `/v1/settings/${enc(key)}`,
  profiles: () => '/v1/profiles',
  specialists: () => '/v1/specialists',
  /** With `connect`, each server is started before it is listed. */
  mcpServers: (query?: { connect?: '1' | undefined }) => withQuery('/v1/mcp/servers', query),
  mcpServer: (name: string) => `/v1/mcp/servers/${enc(name)}`,
  mcpServerRestart: (name: string) => `/v1/mcp/servers/${enc(name)}/restart`,
  mcpServerLog: (name: string, query: { lines: number }) => withQuery(`/v1/mcp/servers/${enc(name)}/log`, query),
  mcpServerResources: (name: string) => `/v1/mcp/servers/${enc(name)}/resources`,
  mcpServerPrompts: (name: string) => `/v1/mcp/servers/${enc(name)}/prompts`,
  /** With `replace`, servers the document names that exist already are replaced, not refused. */
  mcpImport: (query?: { replace?: '1' | undefined }) => withQuery('/v1/mcp/import', query),
  tools: () => '/v1/tools',
  projects: () => '/v1/projects',
  project: (project: string) => `/v1/projects/${enc(project)}`,
  /** With `path`, the folder or file a DELETE takes out. */
  projectKnowledge: (project: string, query?: { path?: string | undefined }) => withQuery(`/v1/projects/${enc(project)}/knowledge`, query),
  conversationProject: (id: string) => `/v1/conversations/${enc(id)}/project`,
  knowledgePause: () => '/v1/knowledge/pause',
  knowledgeResume: () => '/v1/knowledge/resume',
  /** Without a scope, every memory; with `q`, those whose words match. */
  memories: (query?: { scope?: MemoryScope | undefined; q?: string | undefined }) => withQuery('/v1/memories', query),
  /** A conversation's memory has an id with a `/` in it (`CONVERSATION/memory:…`): encoded here. */
  memory: (id: string) => `/v1/memories/${enc(id)}`,
} as const;

/**
 * The route of the router each builder stands for, spelled as crates/tessera-server writes it
 * (`.route("…")` under its `.nest("/v1", …)`), which scripts/check-ui-routes.py compares.
 */
export const routePatterns = {
  conversations: '/v1/conversations',
  conversation: '/v1/conversations/{id}',
  conversationExport: '/v1/conversations/{id}/export',
  conversationImport: '/v1/conversations/import',
  conversationBranch: '/v1/conversations/{id}/branch',
  conversationRegenerate: '/v1/conversations/{id}/regenerate',
  conversationEvents: '/v1/conversations/{id}/events',
  conversationMcpResources: '/v1/conversations/{id}/mcp-resources',
  messages: '/v1/messages',
  runCancel: '/v1/runs/{id}/cancel',
  runContext: '/v1/runs/{id}/context',
  interactions: '/v1/interactions',
  interaction: '/v1/interactions/{id}',
  attachment: '/v1/attachments/{sha256}',
  grants: '/v1/grants',
  grant: '/v1/grants/{id}',
  providers: '/v1/providers',
  localProviders: '/v1/local-providers',
  localModels: '/v1/local-models',
  localDownloads: '/v1/local-models/downloads',
  localDownload: '/v1/local-models/downloads/{file}',
  localDownloadPause: '/v1/local-models/downloads/{file}/pause',
  localDownloadResume: '/v1/local-models/downloads/{file}/resume',
  localFile: '/v1/local-models/files/{file}',
  localFileDefault: '/v1/local-models/files/{file}/default',
  localWorkerStop: '/v1/local-models/worker/stop',
  localImport: '/v1/local-models/import',
  localContext: '/v1/local-models/context',
  provider: '/v1/providers/{name}',
  providerKey: '/v1/providers/{name}/key',
  providerDefault: '/v1/providers/{name}/default',
  providerModels: '/v1/providers/{name}/models',
  providerImages: '/v1/providers/{name}/images',
  providerCheck: '/v1/providers/{name}/check',
  secretStore: '/v1/secrets/store',
  settings: '/v1/settings',
  setting: '/v1/settings/{key}',
  profiles: '/v1/profiles',
  specialists: '/v1/specialists',
  mcpServers: '/v1/mcp/servers',
  mcpServer: '/v1/mcp/servers/{name}',
  mcpServerRestart: '/v1/mcp/servers/{name}/restart',
  mcpServerLog: '/v1/mcp/servers/{name}/log',
  mcpServerResources: '/v1/mcp/servers/{name}/resources',
  mcpServerPrompts: '/v1/mcp/servers/{name}/prompts',
  mcpImport: '/v1/mcp/import',
  tools: '/v1/tools',
  projects: '/v1/projects',
  project: '/v1/projects/{project}',
  projectKnowledge: '/v1/projects/{project}/knowledge',
  conversationProject: '/v1/conversations/{id}/project',
  knowledgePause: '/v1/knowledge/pause',
  knowledgeResume: '/v1/knowledge/resume',
  memories: '/v1/memories',
  memory: '/v1/memories/{id}',
} as const satisfies Record<keyof typeof routes, string>;
