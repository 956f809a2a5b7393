/**
 * Internal to the pipeline tests: a fresh database with mongoose connected to it exactly as the
 * gateway connects (`connectDatabase`: strict, sanitised filters), the command names it receives
 * (to count round trips), and the admin principal imports need. The database follows the test
 * database mode (test/helpers/database-mode.ts), as test/import/db.ts does: an in-memory embedded
 * server, or in uri mode a new database on the shared store process, reached by URI.
 */
import mongoose from 'mongoose';
import { connectDatabase } from '../../../src/db/connect-database';
import { Role } from '../../../src/auth/role';
import type { Principal } from '../../../src/auth/principal';
import { DataAccess } from '../../../src/data/data-access';
import { SCOPES, type Scope } from '../../../src/data/scopes';
import { bumpVersions } from '../../../src/data/versions-document';
import type { EmbeddedMongoServer } from '../../../src/store/server';
import {
  monitored,
  testStoreUri,
  uniqueDatabaseName,
  watchCommands,
  type CommandListener,
} from '../../helpers/database-mode';
import { withDatabase } from '../../helpers/store-process';
import { TEST_CACHE_MAX_AGE_MS } from '../../helpers/cache-window';

export const ADMIN: Principal = {
  subject: 'admin-token',
  role: Role.ADMIN,
  memberId: null,
  teamId: null,
};

export interface TestDatabase {
  /**
   * The embedded server; null in uri mode, where the database is on the store process every test
   * file shares (a test that needs the server itself runs embedded only: itEmbeddedOnly).
   */
  server: EmbeddedMongoServer | null;
  /** The database's name: `pipelines_test` embedded, a fresh one in uri mode. */
  dbName: string;
  /** The data-access layer requests of these tests read through, as one app would own it. */
  access: DataAccess;
  /**
   * Moves every version counter (but those of `except`), as a write to everything would: no cached
   * mutable read is used after it.
   */
  bumpAll(except?: readonly Scope[]): Promise<void>;
  /**
   * Calls `listener` for each command sent to the database from this process until the returned
   * function is called (the embedded server's events, or the driver's command monitoring).
   */
  onCommand(listener: CommandListener): () => void;
  /** Names of the commands received since the last `resetCommands()` (handshakes and pings excluded). */
  commands: string[];
  resetCommands(): void;
  stop(): Promise<void>;
}

const IGNORED = new Set([
  'hello',
  'ismaster',
  'isMaster',
  'ping',
  'buildInfo',
  'buildinfo',
  'endSessions',
]);

let current: DataAccess | null = null;

/** The data-access layer of the database started last (request contexts of these tests use it). */
export function testAccess(): DataAccess {
  if (current === null) throw new Error('startDatabase() first');
  return current;
}

export async function startDatabase(): Promise<TestDatabase> {
  const storeUri = testStoreUri();
  const dbName = storeUri === null ? 'pipelines_test' : uniqueDatabaseName();
  // Embedded: `uri: ''` keeps a MONGODB_URI meant for the store's conformance suite from being
  // picked up. Uri mode: the driver's command monitoring on (it only emits events), for `commands`.
  const database =
    storeUri === null
      ? await connectDatabase({ inMemory: true, uri: '', dbName })
      : await connectDatabase({ uri: monitored(withDatabase(storeUri, dbName)), dbName });
  const server = database.embedded;
  if (storeUri === null && !server)
    throw new Error('startDatabase: connectDatabase did not start the embedded server');
  const onCommand = (listener: CommandListener): (() => void) =>
    watchCommands(database.connection, server, listener);
  const commands: string[] = [];
  onCommand((name) => {
    if (!IGNORED.has(name)) commands.push(name);
  });
  await Promise.all(Object.values(mongoose.models).map((model) => model.init()));
  current = new DataAccess({
    connection: database.connection,
    cacheMaxAgeMs: TEST_CACHE_MAX_AGE_MS,
  });
  await current.ready();
  return {
    server,
    dbName,
    access: current,
    bumpAll: (except: readonly Scope[] = []) =>
      bumpVersions(
        database.connection,
        SCOPES.filter((scope) => !except.includes(scope)),
      ),
    onCommand,
    commands,
    resetCommands: () => {
      commands.length = 0;
    },
    stop: async () => {
      // Uri mode: the store outlives this file; its database goes, so the store stays small.
      if (storeUri !== null) await database.connection.dropDatabase().catch(() => undefined);
      await database.close();
      current = null;
    },
  };
}
