import 'reflect-metadata';
import { CRM_PROVIDERS } from '../crm/connector';
import { loadConfig } from '../config';
import { ErrorWithCode } from '../errors';
import { formatImportSummary } from '../import/import-summary';
import { ImportQueue } from '../import/import-queue';
import { CRM_SYNC_MODES, type CrmSyncMode } from '../models/crm-sync.model';
import { CrmSync } from '../sync/crm-sync';
import { createSyncProgressReporter } from '../sync/sync-progress';
import { formatSettings, GATEWAY_SETTINGS, IMPORT_SETTINGS } from '../settings-table';
import { CLI_PRINCIPAL, openCliDatabase, parseCliArgs } from './cli-setup';

const USAGE = `Usage: npm run sync -- [--provider hubspot|salesforce] [--mode full|incremental] [--force]

Syncs from the CRM once, in the foreground, as POST /crm/syncs does: the first sync reads
everything, later ones what changed since the last committed sync. HubSpot needs HUBSPOT_TOKEN;
Salesforce SALESFORCE_CLIENT_ID, SALESFORCE_CLIENT_SECRET and SALESFORCE_LOGIN_URL
(docs/crm-sync.md). Uses MONGODB_URI, else the embedded database in DATA_DIR (stop a gateway
running on that directory first).

  --provider  the CRM to read (default: CRM_PROVIDER, else hubspot)
  --mode      full: read everything; incremental: what changed since the last committed sync
              (default: full the first time, incremental after)
  --force     import even when the import's guard would refuse (fewer than half of the deals kept,
              more than half removed, or no pipeline left)

Exit status: 0 succeeded (a snapshot committed, or nothing changed), 1 failed (nothing kept),
2 usage, 3 another sync is running or the sync is not configured.

Settings (environment variables, docs/configuration.md):

${formatSettings([
  ...GATEWAY_SETTINGS.filter(
    (row) =>
      row.name === 'CRM_PROVIDER' ||
      row.name.startsWith('HUBSPOT_') ||
      row.name.startsWith('SALESFORCE_'),
  ),
  ...IMPORT_SETTINGS,
])}`;

async function main(): Promise<number> {
  const args = parseCliArgs(USAGE, {
    provider: { type: 'string' },
    mode: { type: 'string' },
    force: { type: 'boolean' },
  });
  if (typeof args === 'number') return args;
  const { provider, mode } = args.values;
  if (provider !== undefined && !(CRM_PROVIDERS as readonly string[]).includes(provider)) {
    console.error(
      `--provider must be one of ${CRM_PROVIDERS.join(', ')}, got "${provider}"\n\n${USAGE}`,
    );
    return 2;
  }
  if (mode !== undefined && !(CRM_SYNC_MODES as readonly string[]).includes(mode)) {
    console.error(`--mode must be one of ${CRM_SYNC_MODES.join(', ')}, got "${mode}"\n\n${USAGE}`);
    return 2;
  }
  const config = loadConfig(
    provider === undefined ? process.env : { ...process.env, CRM_PROVIDER: provider },
  );
  const sync = new CrmSync({ config, queue: new ImportQueue(), role: 'cli' });
  if (!sync.configured) {
    const needs =
      config.crmProvider === 'salesforce'
        ? 'SALESFORCE_CLIENT_ID and SALESFORCE_CLIENT_SECRET are not set'
        : 'HUBSPOT_TOKEN is not set';
    console.error(`Cannot sync from ${sync.crmName}: ${needs} (docs/crm-sync.md says how)`);
    return 3;
  }
  // A pending snapshot a sync killed half-way left is undone by the import, under its lease.
  const database = await openCliDatabase(config);
  const progress = createSyncProgressReporter(sync.crmName);
  // Ctrl-C stops the sync cleanly: it fails, keeping nothing, and gives the lease back.
  const interrupt = () => void sync.stop();
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  try {
    const started = await sync.start(CLI_PRINCIPAL, 'cli', {
      mode: mode as CrmSyncMode | undefined,
      force: args.values.force === true,
      onProgress: progress.report,
    });
    const { run, import: result } = await started.finished;
    progress.done();
    const name = `${run.mode === 'full' ? 'Full' : 'Incremental'} ${sync.crmName} sync ${run._id}`;
    if (run.status !== 'succeeded' || result === null) {
      console.error(`${name} failed, nothing was kept: ${run.error}`);
      return 1;
    }
    const ch = run.changes ?? { added: 0, changed: 0, unchanged: 0, removed: 0 };
    const counted = `${ch.added} added, ${ch.changed} changed, ${ch.unchanged} unchanged, ${ch.removed} removed`;
    console.log(`${name}: read ${run.progress.dealsRead} deals.`);
    if (!result.committed) {
      console.log(
        `Nothing changed (${counted}): no snapshot committed; the latest, ${result.snapshotId}, stands.`,
      );
      return 0;
    }
    console.log(formatImportSummary(result));
    console.log(`  compared     ${counted}`);
    return 0;
  } catch (error) {
    progress.done();
    if (error instanceof ErrorWithCode && error.status === 409) {
      console.error(`Sync refused: ${error.message}`);
      return 3;
    }
    throw error;
  } finally {
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
    await database.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(
      `Sync failed, nothing was kept: ${error instanceof Error ? error.message : String(error)}`,
    );
    process.exit(1);
  },
);
