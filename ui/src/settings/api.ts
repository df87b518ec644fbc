/**
 * The settings endpoints of `/v1` (README "The `/v1` API": providers, settings, profiles,
 * specialists, tools). The check, the settings, the model status, profiles and specialists are
 * generated from Rust (tessera_protocol::settings_api, the engine's profiles and specialists);
 * the provider rows are still assembled on the server as plain JSON, so their shapes are
 * written here until they get a Rust type.
 */
import type { TesseraClient, TransportRequest } from '../transport/client';
import type { AgentProfile } from '../generated/AgentProfile';
import type { Evidence } from '../generated/Evidence';
import type { JsonValue } from '../generated/serde_json/JsonValue';
import type { McpImported } from '../generated/McpImported';
import type { McpPrompt } from '../generated/McpPrompt';
import type { McpPromptList } from '../generated/McpPromptList';
import type { McpResource } from '../generated/McpResource';
import type { McpResourceList } from '../generated/McpResourceList';
import type { McpServerList } from '../generated/McpServerList';
import type { McpServerLog } from '../generated/McpServerLog';
import type { McpServerView } from '../generated/McpServerView';
import type { ModelStatus } from '../generated/ModelStatus';
import type { ProviderCheck } from '../generated/ProviderCheck';
import type { SettingValues } from '../generated/SettingValues';
import type { SettingsView } from '../generated/SettingsView';
import type { SpecialistSpec } from '../generated/SpecialistSpec';

export type { AgentProfile, McpPrompt, McpResource, McpServerView, ModelStatus, ProviderCheck, SettingsView, SpecialistSpec };

export type WireKind = 'openai' | 'anthropic';

/** A provider configuration as saved (`ProviderConfig`; keys are never part of it). */
export interface ProviderConfig {
  name: string;
  kind: WireKind;
  base_url: string;
  models?: Record<string, JsonValue>;
  default_model?: string | null;
  fallback_model?: string | null;
  requires_key?: boolean;
  proxy?: string | null;
  [field: string]: JsonValue | undefined;
}

/** A row of `GET /v1/providers`. */
export interface ProviderRow {
  name: string;
  kind: WireKind;
  source: 'preset' | 'saved' | 'preset+saved' | string;
  default: boolean;
  base_url: string;
  default_model: string | null;
  models: string[];
  requires_key: boolean;
  /** Where the key is found: `env`, `keyring`, `missing`, `not_needed`, `unknown`. */
  key: string;
  key_env_var: string | null;
  key_env_vars: string[];
  /** null: the keyring could not be read. */
  has_key: boolean | null;
  config: ProviderConfig;
}

export interface ProviderList {
  providers: ProviderRow[];
  default: string | null;
  keyring_error: string | null;
  model: ModelStatus;
}

export interface ModelInfo {
  id: string;
  display_name?: string;
}

export type SettingKey = keyof SettingValues;

export interface ToolInfo {
  name: string;
  description: string;
}

/**
 * A resource and a prompt of an MCP server as the server lists them (the MCP specification's
 * `Resource` and `Prompt`, passed through unchanged, so they have no Rust type to generate
 * from); only what the settings page shows.
 */
/** One problem of a refused profile or specialist (`details.problems`). */
export interface AgentProblem {
  profile?: string | null;
  specialist?: string;
  index?: number;
  field: string;
  message: string;
}

/**
 * The settings calls over the app's client, so they go the same way as the chat (HTTP with
 * the token in a browser, IPC in the desktop shell).
 */
export class SettingsApi {
  constructor(private readonly client: TesseraClient) {}

  static of(client: TesseraClient): SettingsApi {
    return new SettingsApi(client);
  }

  private json<T>(request: TransportRequest): Promise<T> {
    return this.client.json<T>(request);
  }

  providers(): Promise<ProviderList> {
    return this.json({ method: 'GET', path: '/v1/providers' });
  }

  saveProvider(config: ProviderConfig): Promise<{ name: string; replaced: boolean; model: ModelStatus }> {
    return this.json({ method: 'POST', path: '/v1/providers', body: config });
  }

  removeProvider(name: string): Promise<{ keyring_warning: string | null; model: ModelStatus }> {
    return this.json({ method: 'DELETE', path: `/v1/providers/${encodeURIComponent(name)}` });
  }

  setKey(name: string, key: string): Promise<{ env_override: string | null; not_required: boolean; model: ModelStatus }> {
    return this.json({ method: 'PUT', path: `/v1/providers/${encodeURIComponent(name)}/key`, body: { key } });
  }

  deleteKey(name: string): Promise<{ removed: boolean; model: ModelStatus }> {
    return this.json({ method: 'DELETE', path: `/v1/providers/${encodeURIComponent(name)}/key` });
  }

  makeDefault(name: string): Promise<{ default: string; model: ModelStatus }> {
    return this.json({ method: 'POST', path: `/v1/providers/${encodeURIComponent(name)}/default`, body: {} });
  }

  async models(name: string): Promise<ModelInfo[]> {
    const body = await this.json<{ models: ModelInfo[] }>({ method: 'GET', path: `/v1/providers/${encodeURIComponent(name)}/models` });
    return body.models;
  }

  check(name: string, model?: string): Promise<ProviderCheck> {
    return this.json({ method: 'POST', path: `/v1/providers/${encodeURIComponent(name)}/check`, body: model ? { model } : {} });
  }

  settings(): Promise<SettingsView> {
    return this.json({ method: 'GET', path: '/v1/settings' });
  }

  changeSetting(key: SettingKey, value: JsonValue): Promise<SettingsView> {
    return this.json({ method: 'PUT', path: `/v1/settings/${key}`, body: { value } });
  }

  profiles(): Promise<{ profiles: AgentProfile[]; custom: boolean }> {
    return this.json({ method: 'GET', path: '/v1/profiles' });
  }

  saveProfiles(profiles: AgentProfile[]): Promise<{ profiles: AgentProfile[]; custom: boolean }> {
    return this.json({ method: 'PUT', path: '/v1/profiles', body: profiles });
  }

  resetProfiles(): Promise<{ profiles: AgentProfile[]; custom: boolean }> {
    return this.json({ method: 'DELETE', path: '/v1/profiles' });
  }

  specialists(): Promise<{ specialists: SpecialistSpec[]; custom: boolean }> {
    return this.json({ method: 'GET', path: '/v1/specialists' });
  }

  saveSpecialists(specialists: SpecialistSpec[]): Promise<{ specialists: SpecialistSpec[]; custom: boolean }> {
    return this.json({ method: 'PUT', path: '/v1/specialists', body: specialists });
  }

  resetSpecialists(): Promise<{ specialists: SpecialistSpec[]; custom: boolean }> {
    return this.json({ method: 'DELETE', path: '/v1/specialists' });
  }

  /** The MCP servers; with `connect`, each is started first (within its start-up timeout). */
  async mcpServers(connect = false): Promise<McpServerView[]> {
    const body = await this.json<McpServerList>({ method: 'GET', path: connect ? '/v1/mcp/servers?connect=1' : '/v1/mcp/servers' });
    return body.servers;
  }

  /** Adds or replaces a server from one entry of the `mcpServers` shape. */
  putMcpServer(name: string, entry: Record<string, unknown>): Promise<McpServerView> {
    return this.json({ method: 'PUT', path: mcpPath(name), body: entry });
  }

  async removeMcpServer(name: string): Promise<void> {
    await this.json({ method: 'DELETE', path: mcpPath(name) });
  }

  importMcpServers(document: unknown): Promise<McpImported> {
    return this.json({ method: 'POST', path: '/v1/mcp/import', body: document });
  }

  restartMcpServer(name: string): Promise<McpServerView> {
    return this.json({ method: 'POST', path: `${mcpPath(name)}/restart`, body: {} });
  }

  async mcpLog(name: string, lines = 200): Promise<string[]> {
    const body = await this.json<McpServerLog>({ method: 'GET', path: `${mcpPath(name)}/log?lines=${lines}` });
    return body.lines;
  }

  async mcpResources(name: string): Promise<McpResource[]> {
    const body = await this.json<McpResourceList>({ method: 'GET', path: `${mcpPath(name)}/resources` });
    return body.resources;
  }

  async mcpPrompts(name: string): Promise<McpPrompt[]> {
    const body = await this.json<McpPromptList>({ method: 'GET', path: `${mcpPath(name)}/prompts` });
    return body.prompts;
  }

  /** Reads the resource once and keeps it in the conversation as an evidence. */
  attachMcpResource(conversationId: string, server: string, uri: string): Promise<Evidence> {
    return this.json({ method: 'POST', path: `/v1/conversations/${encodeURIComponent(conversationId)}/mcp-resources`, body: { server, uri } });
  }

  async tools(): Promise<ToolInfo[]> {
    const body = await this.json<{ tools: ToolInfo[] }>({ method: 'GET', path: '/v1/tools' });
    return body.tools;
  }
}

function mcpPath(name: string): string {
  return `/v1/mcp/servers/${encodeURIComponent(name)}`;
}

/** `details.problems` of a refused profile/specialist list, when the error has them. */
export function problemsOf(details: { [key: string]: JsonValue } | undefined): AgentProblem[] {
  const problems = details?.['problems'];
  if (!Array.isArray(problems)) return [];
  return problems.flatMap((p) => {
    if (!p || typeof p !== 'object' || Array.isArray(p)) return [];
    const field = typeof p['field'] === 'string' ? p['field'] : '';
    const message = typeof p['message'] === 'string' ? p['message'] : '';
    const problem: AgentProblem = { field, message };
    if (typeof p['profile'] === 'string') problem.profile = p['profile'];
    if (typeof p['specialist'] === 'string') problem.specialist = p['specialist'];
    if (typeof p['index'] === 'number') problem.index = p['index'];
    return [problem];
  });
}
