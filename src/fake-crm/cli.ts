import { parseCliArgs } from '../cli/cli-setup';
import { fakeCompany } from './fake-company';
import { startHubSpotServer } from './hubspot-server';

const USAGE = `Usage: npm run fake-crm -- [--port <port>] [--host <address>] [--token <token>] [--deals <n>]

Serves a small generated company (two pipelines, four owners in two teams, deals in USD) the way
HubSpot's CRM v3 API does, for trying the sync before creating a HubSpot key: point HUBSPOT_BASE_URL
at it and set HUBSPOT_TOKEN to its token (docs/hubspot-sync.md, "Trying it without HubSpot").
Ctrl-C stops it.

  --port   default 4010      --host   default 127.0.0.1
  --token  default fake-crm-token (the Bearer token it accepts)
  --deals  default 40`;

function whole(name: string, raw: string | undefined, fallback: number, max: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) > max)
    throw new Error(`--${name} must be a whole number up to ${max}, got "${raw}"`);
  return Number(raw);
}

async function main(): Promise<number | undefined> {
  const args = parseCliArgs(USAGE, {
    port: { type: 'string' },
    host: { type: 'string' },
    token: { type: 'string' },
    deals: { type: 'string' },
  });
  if (typeof args === 'number') return args;
  const token = args.values.token ?? 'fake-crm-token';
  const dataset = fakeCompany({ deals: whole('deals', args.values.deals, 40, 100_000) });
  const server = await startHubSpotServer({
    token,
    dataset,
    host: args.values.host ?? '127.0.0.1',
    port: whole('port', args.values.port, 4010, 65535),
    // HubSpot's limit for a private app, announced in its headers as HubSpot does.
    rateLimit: { max: 190, intervalMs: 10_000 },
  });
  console.log(
    `Fake HubSpot CRM on ${server.url} (token ${token}): ${dataset.deals.length} deals, ${dataset.owners.length} owners, ${dataset.pipelines.length} pipelines, currency ${dataset.companyCurrency}`,
  );
  console.log(`  Sync from it: HUBSPOT_TOKEN=${token} HUBSPOT_BASE_URL=${server.url} npm run sync`);
  const stop = (): void => {
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return undefined;
}

main().then(
  (code) => {
    if (code !== undefined) process.exit(code);
  },
  (error: unknown) => {
    console.error(`fake-crm: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
