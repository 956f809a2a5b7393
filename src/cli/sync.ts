import 'reflect-metadata';
import { parseArgs } from 'node:util';
import type { Principal } from '../auth/principal';
import { Role } from '../auth/role';
import { loadConfig } from '../config';
import { connectDatabase } from '../db/connect-database';
import { ensureIndexes } from '../db/ensure-indexes';
import { ErrorWithCode } from '../errors';
import { formatImportSummary } from '../import/import-summary';
import { discardPendingImports } from '../import/discard-import';
import { ImportQueue } from '../import/import-queue';
import { CrmSync } from '../sync/crm-sync';
import { createSyncProgressReporter } from '../sync/sync-progress';

const USAGE = `Usage: npm run sync -- [--force]

Syncs from HubSpot once, as POST /crm/syncs does: the first sync reads everything, later ones the
deals changed since the last committed sync. Needs HUBSPOT_TOKEN (HUBSPOT_BASE_URL optional). Uses
MONGODB_URI, else the embedded database in DATA_DIR (stop a gateway running on that directory first).

  --force   import even when the import's guard would refuse (fewer than half of the deals kept)

Exit status: 0 committed, 1 failed (nothing kept), 2 usage, 3 another sync is running or the sync
is not configured.`;

/** The CLI runs with the rights of whoever can run it on the server: an admin. */
const CLI_PRINCIPAL: Principal = { subject: 'cli', role: Role.ADMIN, memberId: null, teamId: null };

async function main(): Promise<number> {
  let args;
  try {
    args = parseArgs({ options: { force: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (args.values.help) {
    console.log(USAGE);
    return 0;
  }
  const config = loadConfig();
  const sync = new CrmSync({ config, queue: new ImportQueue(), role: 'cli' });
  if (!sync.configured) {
    console.error('Cannot sync: HUBSPOT_TOKEN is not set (docs/hubspot-sync.md says how to get one)');
    return 3;
  }
  const database = await connectDatabase({ uri: config.mongodbUri, dataDir: config.dataDir });
  const progress = createSyncProgressReporter();
  try {
    await ensureIndexes();
    // The embedded database's directory is locked to this process: anything pending was left by a
    // process that died (a sync killed half-way), as the gateway's start-up would find it.
    if (database.embedded) await discardPendingImports();
    const result = await sync.run(CLI_PRINCIPAL, 'cli', { force: args.values.force === true, onProgress: progress.report });
    progress.done();
    const { mode, fetched } = result!;
    console.log(`${mode === 'full' ? 'Full' : 'Incremental'} sync ${result!.syncId}: read ${fetched.deals} deals${mode === 'incremental' ? ` changed and ${fetched.archived} archived` : ''} from HubSpot.`);
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
      for (const field of error.fieldErrors ?? []) console.error(`  ${field.field}: ${field.message}`);
    } else console.error(`Sync failed, nothing was kept: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
