import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config';
import { connectDatabase } from '../db/connect-database';
import { formatImportSummary } from '../import/import-summary';
import { createProgressReporter } from '../import/progress-reporter';
import { DEFAULT_DEMO_DEALS, DEFAULT_DEMO_SEED } from '../seed/generate-demo';
import { seedDemo } from '../seed/seed-demo';

const USAGE = `Usage: npm run seed -- [--deals N] [--seed S]

Loads the demo company (EUR, quarterly, three teams, twelve members, targets, N deals over two
years with backfilled quarterly snapshots; default ${DEFAULT_DEMO_DEALS} deals, seed ${DEFAULT_DEMO_SEED}) into MONGODB_URI or
the embedded database in DATA_DIR. Large N (e.g. 100000) makes benchmark data sets.`;

function positiveInteger(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new Error(`--${name} must be a whole number, got "${raw}"`);
  return Number(raw);
}

async function main(): Promise<number> {
  let deals: number;
  let seed: number;
  try {
    const args = parseArgs({
      options: {
        deals: { type: 'string' },
        seed: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (args.values.help) {
      console.log(USAGE);
      return 0;
    }
    deals = positiveInteger('deals', args.values.deals, DEFAULT_DEMO_DEALS);
    seed = positiveInteger('seed', args.values.seed, DEFAULT_DEMO_SEED);
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const config = loadConfig();
  const database = await connectDatabase({ uri: config.mongodbUri, dataDir: config.dataDir });
  const progress = createProgressReporter();
  const started = Date.now();
  try {
    const result = await seedDemo({ deals, seed, onProgress: progress.report });
    progress.done();
    console.log(formatImportSummary(result.import));
    console.log(
      `  roles        ${result.rolesSet} admin/manager roles set, ${result.targets} target sets`,
    );
    console.log(`Demo company seeded in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
    return 0;
  } finally {
    progress.done();
    await database.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`Seeding failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
