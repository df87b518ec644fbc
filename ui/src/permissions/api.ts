/**
 * The permissions page's and the context inspector's endpoints (README "The `/v1` API":
 * `/v1/grants`, `/v1/runs/{id}/context`).
 */
import type { ConsentGrantView } from '../generated/ConsentGrantView';
import type { RunContext } from '../generated/RunContext';
import { errorOf, type TesseraClient, type Transport, type TransportRequest } from '../transport/client';

/**
 * `TesseraClient` keeps its transport private and has no method for these endpoints yet (its
 * file is the shell's); the requests go through that same transport, so they carry the token
 * and work over IPC alike. Replace with a client method once it has a generic one.
 */
async function requestJson<T>(client: TesseraClient, request: TransportRequest): Promise<T> {
  const transport = (client as unknown as { transport: Transport }).transport;
  const response = await transport.send({ ...request, headers: { Accept: 'application/json', ...request.headers } });
  if (!response.ok) throw await errorOf(response);
  return (await response.json()) as T;
}

export async function listGrants(client: TesseraClient, includeRevoked: boolean, signal?: AbortSignal): Promise<ConsentGrantView[]> {
  const body = await requestJson<{ grants: ConsentGrantView[] }>(client, {
    method: 'GET',
    path: includeRevoked ? '/v1/grants?include_revoked=true' : '/v1/grants',
    signal,
  });
  return body.grants;
}

export async function revokeGrant(client: TesseraClient, grantId: string): Promise<ConsentGrantView> {
  const body = await requestJson<{ grant: ConsentGrantView }>(client, { method: 'DELETE', path: `/v1/grants/${encodeURIComponent(grantId)}` });
  return body.grant;
}

export function getRunContext(client: TesseraClient, runId: string, signal?: AbortSignal): Promise<RunContext> {
  return requestJson(client, { method: 'GET', path: `/v1/runs/${encodeURIComponent(runId)}/context`, signal });
}
