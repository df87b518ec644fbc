/**
 * The MCP server form's text fields and the entry of the `mcpServers` shape that
 * `PUT /v1/mcp/servers/{name}` takes, both ways. Pure, so the line rules are tested alone.
 */
import type { McpServerView } from '../generated/McpServerView';

/** What the server shows, and takes back, in place of a secret kept in the keyring. */
export const KEYRING_MARK = '${keyring}';

export type McpTransportKind = 'stdio' | 'http';

export interface McpDraft {
  name: string;
  transport: McpTransportKind;
  command: string;
  /** One argument per line. */
  args: string;
  /** `KEY=VALUE` lines; secrets kept in the keyring are not among them (see `kept`). */
  env: string;
  url: string;
  /** `Name: value` lines, as HTTP writes them. */
  headers: string;
  /** Env or header names whose stored value stays in the keyring. */
  kept: string[];
  /** Seconds; empty: the server's default. */
  startupTimeout: string;
}

export type McpDraftField = 'name' | 'command' | 'args' | 'env' | 'url' | 'headers' | 'startupTimeout';

/** A line that could not be read: which field, which line (from 1), and how it should look. */
export interface LineProblem {
  field: 'env' | 'headers';
  line: number;
}

const TRANSPORT_FIELDS = ['type', 'command', 'args', 'env', 'cwd', 'url', 'headers', 'startupTimeout'];

function stringMap(value: unknown): Record<string, string> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) out[k] = String(v);
  return out;
}

function linesOf(map: Record<string, string>, separator: string): { text: string; kept: string[] } {
  const kept = Object.keys(map).filter((k) => map[k] === KEYRING_MARK);
  const text = Object.entries(map)
    .filter(([, v]) => v !== KEYRING_MARK)
    .map(([k, v]) => `${k}${separator}${v}`)
    .join('\n');
  return { text, kept };
}

export function emptyDraft(): McpDraft {
  return { name: '', transport: 'stdio', command: '', args: '', env: '', url: '', headers: '', kept: [], startupTimeout: '' };
}

/** The form's fields for a configured server. */
export function draftOf(server: McpServerView): McpDraft {
  const config = server.config;
  const http = typeof config['url'] === 'string' && typeof config['command'] !== 'string';
  const env = linesOf(stringMap(config['env']), '=');
  const headers = linesOf(stringMap(config['headers']), ': ');
  const args = Array.isArray(config['args']) ? config['args'].map(String) : [];
  const timeout = config['startupTimeout'];
  return {
    name: server.name,
    transport: http ? 'http' : 'stdio',
    command: typeof config['command'] === 'string' ? config['command'] : '',
    args: args.join('\n'),
    env: http ? '' : env.text,
    url: typeof config['url'] === 'string' ? config['url'] : '',
    headers: http ? headers.text : '',
    kept: http ? headers.kept : env.kept,
    startupTimeout: typeof timeout === 'number' ? String(timeout) : '',
  };
}

function nonEmptyLines(text: string): [number, string][] {
  return text
    .split('\n')
    .map((line, i): [number, string] => [i + 1, line.trim()])
    .filter(([, line]) => line !== '');
}

function parsePairs(text: string, separator: string, field: LineProblem['field']): { values: Record<string, string> } | { problem: LineProblem } {
  const values: Record<string, string> = {};
  for (const [line, content] of nonEmptyLines(text)) {
    const at = content.indexOf(separator);
    const key = at > 0 ? content.slice(0, at).trim() : '';
    if (!key || /\s/.test(key)) return { problem: { field, line } };
    values[key] = content.slice(at + separator.length).trim();
  }
  return { values };
}

export type EntryResult = { entry: Record<string, unknown> } | { problem: LineProblem };

/**
 * The entry to send. Fields of `base` the form does not show (`timeout`, `disabled`, `cwd` of a
 * program) are kept; kept secrets go back as the keyring mark unless a line gives a new value.
 */
export function entryOf(draft: McpDraft, base: Record<string, unknown> = {}): EntryResult {
  const entry: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(base)) if (!TRANSPORT_FIELDS.includes(k)) entry[k] = v;
  const pairs = draft.transport === 'stdio' ? parsePairs(draft.env, '=', 'env') : parsePairs(draft.headers, ':', 'headers');
  if ('problem' in pairs) return pairs;
  const { values } = pairs;
  for (const name of draft.kept) if (!(name in values)) values[name] = KEYRING_MARK;
  if (draft.transport === 'stdio') {
    entry['command'] = draft.command.trim();
    entry['args'] = nonEmptyLines(draft.args).map(([, a]) => a);
    if (Object.keys(values).length > 0) entry['env'] = values;
    if (typeof base['cwd'] === 'string') entry['cwd'] = base['cwd'];
  } else {
    entry['type'] = 'http';
    entry['url'] = draft.url.trim();
    if (Object.keys(values).length > 0) entry['headers'] = values;
  }
  const timeout = draft.startupTimeout.trim();
  if (timeout) entry['startupTimeout'] = /^\d+$/.test(timeout) ? Number(timeout) : timeout;
  return { entry };
}

/**
 * Which field a 422 `INVALID_MCP_CONFIG` is about: the server names the place as
 * `mcpServers.<name>.<field>: …` (or the whole entry when it has neither command nor URL).
 */
export function fieldOfMcpError(message: string, transport: McpTransportKind): McpDraftField | 'form' {
  const place = /^mcpServers\.[^.:]*(?:\.(\w+))?(?:\.[^:]*)?:/.exec(message);
  if (!place) return 'form';
  const field = place[1];
  if (field === 'command' || field === 'args' || field === 'env' || field === 'url' || field === 'headers' || field === 'startupTimeout') return field;
  if (field === 'type') return 'form';
  if (/needs `command`/.test(message)) return transport === 'http' ? 'url' : 'command';
  return field === undefined ? 'name' : 'form';
}
