import { loadConfig, type GatewayConfig } from '../config';
import {
  readDataDirAdminToken,
  readStoredAdminToken,
  rotateDataDirAdminToken,
  rotateStoredAdminToken,
} from '../auth/secrets';
import { connectDatabase, type Database } from '../db/connect-database';
import { DirectoryInUseError } from '../store/storage/dir-lock';
import { parseCliArgs } from './cli-setup';

const USAGE = `Usage: npm run -s admin-token [-- --rotate]

Prints the admin token (the bootstrap secret that acts as an admin) and nothing else on standard
output, so that ADMIN=$(npm run -s admin-token) captures it.

With MONGODB_URI it is kept in the database (collection gateway_secrets) and shared by every
instance; --rotate replaces it while they run, and each refuses the old one from its next request.
On the embedded database it is kept in DATA_DIR/admin-token; --rotate replaces it while no
gateway runs on DATA_DIR (a running one holds the directory: stop it first), which uses the new
one from its next start. When ADMIN_TOKEN is set, that value is the admin token: it is printed,
and only changing the variable (and restarting) changes it.

  --rotate   replace the admin token with a new random one, and print the new one`;

/** Why there is nothing to print yet. */
const NONE_YET =
  'No admin token yet: the gateway generates one on its first start (or run with --rotate to make one now).';

async function withDatabase<T>(uri: string, work: (db: Database) => Promise<T>): Promise<T> {
  const database = await connectDatabase({ uri });
  try {
    return await work(database);
  } finally {
    await database.close();
  }
}

async function print(config: GatewayConfig): Promise<string | null> {
  if (config.mongodbUri !== undefined)
    return withDatabase(config.mongodbUri, (db) => readStoredAdminToken(db.connection));
  return readDataDirAdminToken(config.dataDir);
}

async function rotate(config: GatewayConfig): Promise<{ token: string; note: string }> {
  if (config.mongodbUri !== undefined) {
    const token = await withDatabase(config.mongodbUri, (db) =>
      rotateStoredAdminToken(db.connection),
    );
    return {
      token,
      note: 'Admin token rotated: every instance on this database refuses the old one from its next request.',
    };
  }
  const token = await rotateDataDirAdminToken(config.dataDir);
  return {
    token,
    note: `Admin token rotated in ${config.dataDir}: the gateway uses it from its next start.`,
  };
}

async function main(): Promise<number> {
  const args = parseCliArgs(USAGE, { rotate: { type: 'boolean' } });
  if (typeof args === 'number') return args;
  const config = loadConfig();
  if (config.adminToken !== undefined) {
    if (args.values.rotate) {
      console.error(
        'ADMIN_TOKEN is set: it is the admin token, and it changes only with the variable. Set a new value where the gateway reads it and restart it.',
      );
      return 1;
    }
    console.error('(the ADMIN_TOKEN variable)');
    console.log(config.adminToken);
    return 0;
  }
  if (args.values.rotate) {
    try {
      const { token, note } = await rotate(config);
      console.error(note);
      console.log(token);
      return 0;
    } catch (error) {
      if (!(error instanceof DirectoryInUseError)) throw error;
      console.error(
        `Cannot rotate: ${error.message}. The gateway on the embedded database reads the admin token when it starts: stop it, rotate, then start it again.`,
      );
      return 1;
    }
  }
  const token = await print(config);
  if (token === null) {
    console.error(NONE_YET);
    return 1;
  }
  console.log(token);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`admin-token failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
