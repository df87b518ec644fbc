import { describe, expect, it } from 'vitest';
import { routePatterns, routes } from './routes';

// The strings the UI sent before its paths moved here; the servers and the fake engines of the
// other tests match them exactly, so they must not change.
const awkward = 'a/b c?d#e%f 日本語 ✓';
const awkwardEncoded = 'a%2Fb%20c%3Fd%23e%25f%20%E6%97%A5%E6%9C%AC%E8%AA%9E%20%E2%9C%93';

describe('routes', () => {
  it('encodes a path parameter as one segment: slashes, spaces, query and non-ASCII characters included', () => {
    expect(routes.conversation(awkward)).toBe(`/v1/conversations/${awkwardEncoded}`);
    expect(routes.conversationEvents(awkward)).toBe(`/v1/conversations/${awkwardEncoded}/events`);
    expect(routes.providerKey('my provider/eu')).toBe('/v1/providers/my%20provider%2Feu/key');
    expect(routes.mcpServer('files ü')).toBe('/v1/mcp/servers/files%20%C3%BC');
    expect(routes.runContext('run/1')).toBe('/v1/runs/run%2F1/context');
  });

  it('writes the paths without parameters as they were', () => {
    expect(routes.conversations()).toBe('/v1/conversations');
    expect(routes.messages()).toBe('/v1/messages');
    expect(routes.secretStore()).toBe('/v1/secrets/store');
    expect(routes.setting('spending_limit_per_day_usd')).toBe('/v1/settings/spending_limit_per_day_usd');
  });

  it('writes query strings as before: encodeURIComponent, not form encoding, and no `?` without one', () => {
    // encodeURIComponent leaves !'()~ alone and writes a space as %20, where URLSearchParams would not.
    expect(routes.conversations({ archived: 'all', q: "it's (a) ~test!" })).toBe(
      `/v1/conversations?archived=all&q=${encodeURIComponent("it's (a) ~test!")}`,
    );
    expect(routes.conversations({ archived: 'all', q: 'a b&c=d' })).toBe('/v1/conversations?archived=all&q=a%20b%26c%3Dd');
    expect(routes.interactions({ conversation_id: 'c 1/2' })).toBe('/v1/interactions?conversation_id=c%201%2F2');
    expect(routes.conversationExport('c/1', 'markdown')).toBe('/v1/conversations/c%2F1/export?format=markdown');
    expect(routes.mcpServerLog('srv 1', { lines: 200 })).toBe('/v1/mcp/servers/srv%201/log?lines=200');
    expect(routes.grants({ include_revoked: 'true' })).toBe('/v1/grants?include_revoked=true');
    expect(routes.grants()).toBe('/v1/grants');
    expect(routes.mcpServers({ connect: '1' })).toBe('/v1/mcp/servers?connect=1');
    expect(routes.mcpServers(undefined)).toBe('/v1/mcp/servers');
    expect(routes.mcpImport({ replace: '1' })).toBe('/v1/mcp/import?replace=1');
    expect(routes.mcpImport()).toBe('/v1/mcp/import');
  });

  it('builds, with plain parameters, the path of the pattern it stands for', () => {
    const filled = (key: keyof typeof routePatterns) => routePatterns[key].replace(/\{[^}]+\}/g, 'x');
    expect(routes.conversationMcpResources('x')).toBe(filled('conversationMcpResources'));
    expect(routes.attachment('x')).toBe(filled('attachment'));
    expect(routes.providerCheck('x')).toBe(filled('providerCheck'));
    expect(routes.mcpServerPrompts('x')).toBe(filled('mcpServerPrompts'));
  });
});
