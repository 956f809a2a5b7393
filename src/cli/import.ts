import 'reflect-metadata';
import { loadConfig } from '../config';
import { CLI_PRINCIPAL, openCliDatabase, parseCliArgs } from './cli-setup';
import { ErrorWithCode } from '../errors';
import { formatImportSummary } from '../import/import-summary';
import { createProgressReporter } from '../import/progress-reporter';
import { HubSpotFileError, readHubSpotFiles } from '../import/read-hubspot-files';
import { importCrmData } from '../services/import.service';
import { formatSettings, IMPORT_SETTINGS } from '../settings-table';

const USAGE = `Usage: npm run import -- [--snapshot-at <ISO date-time>] [--backfill] [--incremental] [--force] [--home-currency <code>] FILE...

Imports HubSpot CRM data saved from its API: a combined file { "pipelines", "owners", "deals" }, or
separate files in any order: the body of GET /crm/v3/pipelines/deals, of GET /crm/v3/owners, and one
or more pages of GET /crm/v3/objects/deals. Uses MONGODB_URI, else the embedded database in DATA_DIR.

  --incremental  the deals carried are the ones that changed; the others keep their state, archived
                 ones leave; the pipelines and owners files may be left out
  --force        import even when the guard refuses (no usable deal, a full import keeping fewer
                 than half of the latest snapshot's deals, an incremental one removing more than
                 half, no pipeline left, or a --snapshot-at more than 5 minutes ahead)
  --home-currency  the portal's companyCurrency (GET /account-info/v3/details), to count deals in
                 other currencies than the configured one with amount_in_home_currency

Settings (environment variables, docs/configuration.md):

${formatSettings(IMPORT_SETTINGS)}`;

async function main(): Promise<number> {
  const args = parseCliArgs(
    USAGE,
    {
      'snapshot-at': { type: 'string' },
      backfill: { type: 'boolean' },
      incremental: { type: 'boolean' },
      force: { type: 'boolean' },
      'home-currency': { type: 'string' },
    },
    true,
  );
  if (typeof args === 'number') return args;
  if (args.positionals.length === 0) {
    console.error(USAGE);
    return 2;
  }
  const documents = await readHubSpotFiles(args.positionals, {
    incremental: args.values.incremental === true,
  });
  const config = loadConfig();
  const database = await openCliDatabase(config);
  const progress = createProgressReporter();
  try {
    const result = await importCrmData(
      { principal: CLI_PRINCIPAL },
      {
        ...documents,
        snapshotAt: args.values['snapshot-at'],
        backfill: args.values.backfill === true,
        mode: args.values.incremental === true ? 'incremental' : 'full',
        force: args.values.force === true,
        homeCurrency: args.values['home-currency'],
      },
      { onProgress: progress.report, retentionDays: config.snapshotRetentionDays },
    );
    progress.done();
    console.log(formatImportSummary(result));
    return 0;
  } finally {
    progress.done();
    await database.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof HubSpotFileError) console.error(`Cannot import: ${error.message}`);
    else if (error instanceof ErrorWithCode) {
      console.error(`Import refused: ${error.message}`);
      for (const field of error.fieldErrors ?? [])
        console.error(`  ${field.field}: ${field.message}`);
    } else
      console.error(
        `Import failed, nothing was kept: ${error instanceof Error ? error.message : String(error)}`,
      );
    process.exit(1);
  },
);
