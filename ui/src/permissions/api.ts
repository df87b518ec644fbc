/**
 * The permissions page's and the context inspector's endpoints (docs/api.md:
 * `/v1/grants`, `/v1/runs/{id}/context`).
 */
import type { ConsentGrantView } from '../generated/ConsentGrantView';
import type { GrantList } from '../generated/GrantList';
import type { GrantRevoked } from '../generated/GrantRevoked';
import type { RunContext } from '../generated/RunContext';
import type { TesseraClient, TransportRequest } from '../transport/client';
import { routes } from '../transport/routes';

/** Through the app's client: the token, or IPC in the desktop shell, alike. */
function requestJson<T>(client: TesseraClient, request: TransportRequest): Promise<T> {
  return client.json<T>(request);
}

export async function listGrants(client: TesseraClient, includeRevoked: boolean, signal?: AbortSignal): Promise<ConsentGrantView[]> {
  const body = await requestJson<GrantList>(client, {
    method: 'GET',
    path: routes.grants(includeRevoked ? { include_revoked: 'true' } : undefined),
    signal,
  });
  return body.grants;
}

export async function revokeGrant(client: TesseraClient, grantId: string): Promise<ConsentGrantView> {
  const body = await requestJson<GrantRevoked>(client, { method: 'DELETE', path: routes.grant(grantId) });
  return body.grant;
}

export function getRunContext(client: TesseraClient, runId: string, signal?: AbortSignal): Promise<RunContext> {
  return requestJson(client, { method: 'GET', path: routes.runContext(runId), signal });
}
