// Internal test helper: a sync is a job; these follow it to its end over REST and GraphQL.
import type { GatewayResponse, TestGateway } from '../helpers/gateway';

/** GET /crm/syncs/{sync_id} until the sync is no longer running; answers that last response. */
export async function followSync(
  gateway: TestGateway,
  syncId: string,
  timeoutMs = 30_000,
): Promise<GatewayResponse> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await gateway.request('GET', `/crm/syncs/${syncId}`);
    if (response.status !== 200 || response.body.sync.status !== 'running') return response;
    if (Date.now() > deadline)
      throw new Error(`sync ${syncId} still running after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** POST /crm/syncs (expecting its 202 and Location), then follows the sync to its end. */
export async function syncToEnd(
  gateway: TestGateway,
  body?: Record<string, unknown>,
): Promise<{ started: GatewayResponse; ended: GatewayResponse }> {
  const started = await gateway.request('POST', '/crm/syncs', body === undefined ? {} : { body });
  if (started.status !== 202)
    throw new Error(`POST /crm/syncs answered ${started.status}: ${JSON.stringify(started.body)}`);
  const syncId = started.body.sync.sync_id as string;
  if (started.headers.location !== `/crm/syncs/${syncId}`)
    throw new Error(`Location ${started.headers.location} does not name sync ${syncId}`);
  return { started, ended: await followSync(gateway, syncId) };
}

/** crmSync(id) until it is no longer RUNNING; answers the sync's fields as selected. */
export async function followSyncGraphql(
  gateway: TestGateway,
  id: string,
  selection: string,
  timeoutMs = 30_000,
): Promise<Record<string, any>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await gateway.graphql(
      `query ($id: ID!) { crmSync(id: $id) { status ${selection} } }`,
      { id },
    );
    const sync = response.body.data?.crmSync;
    if (sync === undefined || sync === null)
      throw new Error(`crmSync answered ${JSON.stringify(response.body)}`);
    if (sync.status !== 'RUNNING') return sync;
    if (Date.now() > deadline) throw new Error(`sync ${id} still running after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
