/**
 * The settings endpoints of `/v1` (docs/api.md: providers, settings, profiles,
 * specialists, tools). The check, the settings, the model status, profiles and specialists are
 * generated from Rust (tessera_protocol::settings_api, the engine's profiles and specialists);
 * the provider and tool answers and the agents' problems too (tessera_app::views).
 */
import type { TesseraClient, TransportRequest } from '../transport/client';
import { routes } from '../transport/routes';
import type { AgentProblem } from '../generated/AgentProblem';
import type { Profile } from '../generated/Profile';
import type { ProfilesView } from '../generated/ProfilesView';
import type { SpecialistsView } from '../generated/SpecialistsView';
import type { DefaultProviderSet } from '../generated/DefaultProviderSet';
import type { KeyRemoved } from '../generated/KeyRemoved';
import type { KeyStored } from '../generated/KeyStored';
import type { ModelInfo } from '../generated/ModelInfo';
import type { ProviderConfig } from '../generated/ProviderConfig';
import type { LocalProviders } from '../generated/LocalProviders';
import type { DownloadCancelled } from '../generated/DownloadCancelled';
import type { DownloadView } from '../generated/DownloadView';
import type { LocalFileRemoved } from '../generated/LocalFileRemoved';
import type { LocalContextSet } from '../generated/LocalContextSet';
import type { LocalModelChosen } from '../generated/LocalModelChosen';
import type { LocalModelsView } from '../generated/LocalModelsView';
import type { WorkerView } from '../generated/WorkerView';
import type { ProviderList } from '../generated/ProviderList';
import type { ProviderModels } from '../generated/ProviderModels';
import type { ProviderRemoved } from '../generated/ProviderRemoved';
import type { ProviderRow } from '../generated/ProviderRow';
import type { ProviderSaved } from '../generated/ProviderSaved';
import type { WireKind } from '../generated/WireKind';
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
import type { SecretBackend } from '../generated/SecretBackend';
import type { SecretStoreMoved } from '../generated/SecretStoreMoved';
import type { SecretStoreView } from '../generated/SecretStoreView';
import type { SettingValues } from '../generated/SettingValues';
import type { SettingsView } from '../generated/SettingsView';
import type { SpecialistSpec } from '../generated/SpecialistSpec';
import type { ToolInfo } from '../generated/ToolInfo';
import type { ToolList } from '../generated/ToolList';

export type {
  AgentProblem,
  DownloadView,
  LocalModelsView,
  WorkerView,
  Profile,
  McpPrompt,
  McpResource,
  McpServerView,
  ModelInfo,
  ModelStatus,
  ProviderCheck,
  ProviderConfig,
  ProviderList,
  ProviderRow,
  SecretBackend,
  SecretStoreMoved,
  SecretStoreView,
  SettingsView,
  SpecialistSpec,
  ToolInfo,
  WireKind,
};

/**
 * A configuration sent to be saved: what the Rust `ProviderConfig` reads, where everything but
 * the name, the wire format and the base URL has a default.
 */
export type ProviderConfigInput = Pick<ProviderConfig, 'name' | 'kind' | 'base_url'> & Partial<ProviderConfig>;

export type SettingKey = keyof SettingValues;

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
    return this.json({ method: 'GET', path: routes.providers() });
  }

  /** Model servers running on this machine (Ollama, LM Studio), as the providers they would be. */
  localProviders(): Promise<LocalProviders> {
    return this.json({ method: 'GET', path: routes.localProviders() });
  }

  /** The models on this machine: the catalogue, the files, the downloads and their progress. */
  localModels(): Promise<LocalModelsView> {
    return this.json({ method: 'GET', path: routes.localModels() });
  }

  /** Starts (or resumes) a download in the background; `useWhenDone` makes it the default once whole. */
  downloadLocalModel(model: string, useWhenDone: boolean): Promise<DownloadView> {
    return this.json({ method: 'POST', path: routes.localDownloads(), body: { model, use_when_done: useWhenDone } });
  }

  pauseDownload(file: string): Promise<DownloadView> {
    return this.json({ method: 'POST', path: routes.localDownloadPause(file), body: {} });
  }

  resumeDownload(file: string): Promise<DownloadView> {
    return this.json({ method: 'POST', path: routes.localDownloadResume(file), body: {} });
  }

  /**
   * Stops a download and deletes what it wrote; with `keepPartial` what it wrote stays, and the
   * next download of the same model goes on from there.
   */
  cancelDownload(file: string, keepPartial = false): Promise<DownloadCancelled> {
    const path = routes.localDownload(file);
    return this.json({ method: 'DELETE', path: keepPartial ? `${path}?keep_partial=true` : path });
  }

  removeLocalModel(file: string): Promise<LocalFileRemoved> {
    return this.json({ method: 'DELETE', path: routes.localFile(file) });
  }

  /** New runs use this model file (through the on-device provider). */
  useLocalModel(file: string): Promise<LocalModelChosen> {
    return this.json({ method: 'POST', path: routes.localFileDefault(file), body: {} });
  }

  /** New runs use a GGUF file from elsewhere on this computer, where it is. */
  useGgufFile(path: string): Promise<LocalModelChosen> {
    return this.json({ method: 'POST', path: routes.localImport(), body: { path } });
  }

  /** The context local models are loaded with, in tokens; null leaves it to the model and the memory. */
  setLocalContext(tokens: number | null): Promise<LocalContextSet> {
    return this.json({ method: 'PUT', path: routes.localContext(), body: { tokens } });
  }

  stopLocalWorker(): Promise<WorkerView> {
    return this.json({ method: 'POST', path: routes.localWorkerStop(), body: {} });
  }

  saveProvider(config: ProviderConfigInput): Promise<ProviderSaved> {
    return this.json({ method: 'POST', path: routes.providers(), body: config });
  }

  removeProvider(name: string): Promise<ProviderRemoved> {
    return this.json({ method: 'DELETE', path: routes.provider(name) });
  }

  setKey(name: string, key: string): Promise<KeyStored> {
    return this.json({ method: 'PUT', path: routes.providerKey(name), body: { key } });
  }

  deleteKey(name: string): Promise<KeyRemoved> {
    return this.json({ method: 'DELETE', path: routes.providerKey(name) });
  }

  makeDefault(name: string): Promise<DefaultProviderSet> {
    return this.json({ method: 'POST', path: routes.providerDefault(name), body: {} });
  }

  async models(name: string): Promise<ModelInfo[]> {
    const body = await this.json<ProviderModels>({ method: 'GET', path: routes.providerModels(name) });
    return body.models;
  }

  check(name: string, model?: string): Promise<ProviderCheck> {
    return this.json({ method: 'POST', path: routes.providerCheck(name), body: model ? { model } : {} });
  }

  /** Where secrets are kept, and whether the system keyring answers now. */
  secretStore(): Promise<SecretStoreView> {
    return this.json({ method: 'GET', path: routes.secretStore() });
  }

  /** Moves every secret (API keys, MCP servers' secrets) to `store`. */
  chooseSecretStore(store: SecretBackend): Promise<SecretStoreMoved> {
    return this.json({ method: 'PUT', path: routes.secretStore(), body: { store } });
  }

  settings(): Promise<SettingsView> {
    return this.json({ method: 'GET', path: routes.settings() });
  }

  changeSetting(key: SettingKey, value: JsonValue): Promise<SettingsView> {
    return this.json({ method: 'PUT', path: routes.setting(key), body: { value } });
  }

  profiles(): Promise<ProfilesView> {
    return this.json({ method: 'GET', path: routes.profiles() });
  }

  saveProfiles(profiles: Profile[]): Promise<ProfilesView> {
    return this.json({ method: 'PUT', path: routes.profiles(), body: profiles });
  }

  resetProfiles(): Promise<ProfilesView> {
    return this.json({ method: 'DELETE', path: routes.profiles() });
  }

  specialists(): Promise<SpecialistsView> {
    return this.json({ method: 'GET', path: routes.specialists() });
  }

  saveSpecialists(specialists: SpecialistSpec[]): Promise<SpecialistsView> {
    return this.json({ method: 'PUT', path: routes.specialists(), body: specialists });
  }

  resetSpecialists(): Promise<SpecialistsView> {
    return this.json({ method: 'DELETE', path: routes.specialists() });
  }

  /** The MCP servers; with `connect`, each is started first (within its start-up timeout). */
  async mcpServers(connect = false): Promise<McpServerView[]> {
    const body = await this.json<McpServerList>({ method: 'GET', path: routes.mcpServers(connect ? { connect: '1' } : undefined) });
    return body.servers;
  }

  /** Adds or replaces a server from one entry of the `mcpServers` shape. */
  putMcpServer(name: string, entry: Record<string, unknown>): Promise<McpServerView> {
    return this.json({ method: 'PUT', path: routes.mcpServer(name), body: entry });
  }

  async removeMcpServer(name: string): Promise<void> {
    await this.json({ method: 'DELETE', path: routes.mcpServer(name) });
  }

  /** Without `replace`, a document naming a server that exists is refused (409 MCP_SERVERS_EXIST, `details.servers`). */
  importMcpServers(document: unknown, replace = false): Promise<McpImported> {
    return this.json({ method: 'POST', path: routes.mcpImport(replace ? { replace: '1' } : undefined), body: document });
  }

  restartMcpServer(name: string): Promise<McpServerView> {
    return this.json({ method: 'POST', path: routes.mcpServerRestart(name), body: {} });
  }

  async mcpLog(name: string, lines = 200): Promise<string[]> {
    const body = await this.json<McpServerLog>({ method: 'GET', path: routes.mcpServerLog(name, { lines }) });
    return body.lines;
  }

  async mcpResources(name: string): Promise<McpResource[]> {
    const body = await this.json<McpResourceList>({ method: 'GET', path: routes.mcpServerResources(name) });
    return body.resources;
  }

  async mcpPrompts(name: string): Promise<McpPrompt[]> {
    const body = await this.json<McpPromptList>({ method: 'GET', path: routes.mcpServerPrompts(name) });
    return body.prompts;
  }

  /** Reads the resource once and keeps it in the conversation as an evidence. */
  attachMcpResource(conversationId: string, server: string, uri: string): Promise<Evidence> {
    return this.json({ method: 'POST', path: routes.conversationMcpResources(conversationId), body: { server, uri } });
  }

  async tools(): Promise<ToolInfo[]> {
    const body = await this.json<ToolList>({ method: 'GET', path: routes.tools() });
    return body.tools;
  }
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
