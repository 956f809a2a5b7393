import 'reflect-metadata';
import { loadConfig } from '../config';
import { ErrorWithCode } from '../errors';
import { formatImportSummary } from '../import/import-summary';
import { ImportQueue } from '../import/import-queue';
import { CrmSync } from '../sync/crm-sync';
import { createSyncProgressReporter } from '../sync/sync-progress';
import { formatSettings, GATEWAY_SETTINGS, IMPORT_SETTINGS } from '../settings-table';
import { CLI_PRINCIPAL, openCliDatabase, parseCliArgs } from './cli-setup';

const USAGE = `Usage: npm run sync -- [--force]

Syncs from HubSpot once, as POST /crm/syncs does: the first sync reads everything, later ones the
deals changed since the last committed sync. Needs HUBSPOT_TOKEN (HUBSPOT_BASE_URL optional). Uses
MONGODB_URI, else the embedded database in DATA_DIR (stop a gateway running on that directory first).

  --force   import even when the import's guard would refuse (fewer than half of the deals kept,
            more than half removed, or no pipeline left)

Exit status: 0 committed, 1 failed (nothing kept), 2 usage, 3 another sync is running or the sync
is not configured.

Settings (environment variables, docs/configuration.md):

${formatSettings([
  ...GATEWAY_SETTINGS.filter((row) => row.name.startsWith('HUBSPOT_')),
  ...IMPORT_SETTINGS,
])}`;

async function main(): Promise<number> {
  const args = parseCliArgs(USAGE, { force: { type: 'boolean' } });
  if (typeof args === 'number') return args;
  const config = loadConfig();
  const sync = new CrmSync({ config, queue: new ImportQueue(), role: 'cli' });
  if (!sync.configured) {
    console.error(
      'Cannot sync: HUBSPOT_TOKEN is not set (docs/hubspot-sync.md says how to get one)',
    );
    return 3;
  }
  // A pending snapshot a sync killed half-way left is undone by the import, under its lease.
  const database = await openCliDatabase(config);
  const progress = createSyncProgressReporter();
  try {
    const result = await sync.run(CLI_PRINCIPAL, 'cli', {
      force: args.values.force === true,
      onProgress: progress.report,
    });
    progress.done();
    const { mode, fetched } = result!;
    console.log(
      `${mode === 'full' ? 'Full' : 'Incremental'} sync ${result!.syncId}: read ${fetched.deals} deals${mode === 'incremental' ? ` changed and ${fetched.archived} archived` : ''} from HubSpot.`,
    );
    console.log(formatImportSummary(result!.import));
    console.log(`  high-water   ${result!.highWaterMark?.toISOString() ?? 'none (no deal read)'}`);
    return 0;
  } catch (error) {
    progress.done();
    if (error instanceof ErrorWithCode && error.status === 409) {
      console.error(`Sync refused: ${error.message}`);
      return 3;
    }
    throw error;
  } finally {
    await database.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof ErrorWithCode) {
      console.error(`Sync failed, nothing was kept: ${error.message}`);
      for (const field of error.fieldErrors ?? [])
        console.error(`  ${field.field}: ${field.message}`);
    } else
      console.error(
        `Sync failed, nothing was kept: ${error instanceof Error ? error.message : String(error)}`,
      );
    process.exit(1);
  },
);
