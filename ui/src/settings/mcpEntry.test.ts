import { describe, expect, it } from 'vitest';
import type { McpServerView } from '../generated/McpServerView';
import { draftOf, entryOf, fieldOfMcpError } from './mcpEntry';

const remote: McpServerView = {
  name: 'remote',
  config: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: '${keyring}', 'X-Client': 'tessera' }, startupTimeout: 20 },
  uri: 'https://mcp.example.com/mcp',
  disabled: false,
  always_ask: false,
  status: { state: 'idle' },
  tools: [],
  secrets: ['Authorization'],
};

describe('MCP server entries', () => {
  it('an HTTP server round-trips: headers as lines, the kept secret by name only, the timeout kept', () => {
    const draft = draftOf(remote);
    expect(draft).toMatchObject({ transport: 'http', url: 'https://mcp.example.com/mcp', headers: 'X-Client: tessera', kept: ['Authorization'], startupTimeout: '20' });
    expect(entryOf(draft, remote.config)).toEqual({ entry: remote.config });
    // A new value given by a line replaces the kept one.
    const replaced = entryOf({ ...draft, headers: 'Authorization: Bearer new-token' }, remote.config);
    expect(replaced).toEqual({ entry: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer new-token' }, startupTimeout: 20 } });
  });

  it('switching a program to a URL drops what only a program has', () => {
    const program = { command: 'node', args: ['a.js'], env: { A: '1' }, cwd: '/tmp', timeout: 9 };
    const draft = { ...draftOf({ ...remote, config: program, secrets: [] }), transport: 'http' as const, url: 'http://127.0.0.1:3000/mcp' };
    expect(entryOf(draft, program)).toEqual({ entry: { type: 'http', url: 'http://127.0.0.1:3000/mcp', timeout: 9 } });
  });

  it('names the line that is not a pair', () => {
    const draft = { ...draftOf(remote), headers: 'X-Client: t\nno colon here' };
    expect(entryOf(draft)).toEqual({ problem: { field: 'headers', line: 2 } });
  });

  it.each([
    ['mcpServers.x.url: must be an http:// or https:// URL', 'http', 'url'],
    ['mcpServers.x.env.TOKEN: must be a string', 'stdio', 'env'],
    ['mcpServers.x.startupTimeout: must be a whole number of seconds above 0', 'stdio', 'startupTimeout'],
    ['mcpServers.x: needs `command` (a program to start) or `url` (a streamable HTTP endpoint)', 'stdio', 'command'],
    ['mcpServers.x: needs `command` (a program to start) or `url` (a streamable HTTP endpoint)', 'http', 'url'],
    ['mcpServers.a b: a server’s name is 1–32 letters, digits, `-` or `_` (no `__`): it prefixes its tools’ names', 'stdio', 'name'],
    ['cannot read or write /data/mcp.json: disk full', 'stdio', 'form'],
  ] as const)('a refusal saying %j (%s) is shown at %s', (message, transport, field) => {
    expect(fieldOfMcpError(message, transport)).toBe(field);
  });
});
