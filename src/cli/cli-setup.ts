import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Principal } from '../auth/principal';
import { Role } from '../auth/role';
import type { GatewayConfig } from '../config';
import { connectDatabase, type Database } from '../db/connect-database';
import { ensureIndexes } from '../db/ensure-indexes';
import { explainingDatabaseErrors } from '../db/explain-database-error';
import { migrateOpportunityCopies } from '../db/migrate-opportunity-copies';
import { clearImportLease } from '../import/import-lease';

/** The CLIs run with the rights of whoever can run them on the server: an admin. */
export const CLI_PRINCIPAL: Principal = {
  subject: 'cli',
  role: Role.ADMIN,
  memberId: null,
  teamId: null,
};

const HELP = { help: { type: 'boolean', short: 'h' } } as const;

type CliArgs<O extends NonNullable<ParseArgsConfig['options']>> = ReturnType<
  typeof parseArgs<{ options: O & typeof HELP; allowPositionals: true }>
>;

/**
 * A CLI's arguments (`--help`/`-h` added), or the exit status to stop with: 0 once `--help` printed
 * the usage, 2 once a bad argument printed why and the usage.
 */
export function parseCliArgs<O extends NonNullable<ParseArgsConfig['options']>>(
  usage: string,
  options: O,
  allowPositionals = false,
): CliArgs<O> | number {
  let args: CliArgs<O>;
  try {
    args = parseArgs({ options: { ...options, ...HELP }, allowPositionals }) as CliArgs<O>;
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${usage}`);
    return 2;
  }
  if ((args.values as { help?: boolean }).help) {
    console.log(usage);
    return 0;
  }
  return args;
}

/**
 * Connects as the gateway does and readies the database as its start-up would: indexes, a database
 * written before opportunity versions converted, and on the embedded database (whose directory
 * only this process can open) an import lease left by a process that stopped cleared.
 */
export async function openCliDatabase(
  config: Pick<GatewayConfig, 'mongodbUri' | 'dataDir'>,
): Promise<Database> {
  const database = await explainingDatabaseErrors(config, () =>
    connectDatabase({ uri: config.mongodbUri, dataDir: config.dataDir }),
  );
  try {
    await ensureIndexes();
    await migrateOpportunityCopies(database.connection);
    if (database.embedded) await clearImportLease();
    return database;
  } catch (error) {
    await database.close();
    throw error;
  }
}
