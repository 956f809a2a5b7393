/**
 * Internal to the pipeline tests: an in-memory embedded MongoDB server with mongoose connected to
 * it exactly as the gateway connects (`connectDatabase`: strict, sanitised filters), the command
 * names it receives (to count round trips), and the admin principal imports need.
 */
import mongoose from 'mongoose';
import { connectDatabase } from '../../../src/db/connect-database';
import { Role } from '../../../src/auth/role';
import type { Principal } from '../../../src/auth/principal';
import { DataAccess } from '../../../src/data/data-access';
import { SCOPES } from '../../../src/data/scopes';
import { bumpVersions } from '../../../src/data/versions-document';
import { EmbeddedMongoServer } from '../../../src/store/server';

export const ADMIN: Principal = { subject: 'admin-token', role: Role.ADMIN, memberId: null, teamId: null };

export interface TestDatabase {
  server: EmbeddedMongoServer;
  /** The data-access layer requests of these tests read through, as one app would own it. */
  access: DataAccess;
  /** Moves every version counter, as a write to everything would: no cached mutable read is used after it. */
  bumpAll(): Promise<void>;
  /** Names of the commands received since the last `resetCommands()` (handshakes and pings excluded). */
  commands: string[];
  resetCommands(): void;
  stop(): Promise<void>;
}

const IGNORED = new Set(['hello', 'ismaster', 'isMaster', 'ping', 'buildInfo', 'buildinfo', 'endSessions']);

let current: DataAccess | null = null;

/** The data-access layer of the database started last (request contexts of these tests use it). */
export function testAccess(): DataAccess {
  if (current === null) throw new Error('startDatabase() first');
  return current;
}

export async function startDatabase(): Promise<TestDatabase> {
  const database = await connectDatabase({ inMemory: true, dbName: 'pipelines_test' });
  const server = database.embedded!;
  const commands: string[] = [];
  server.on('command', (name) => {
    if (!IGNORED.has(name)) commands.push(name);
  });
  await Promise.all(Object.values(mongoose.models).map((model) => model.init()));
  current = new DataAccess({ connection: database.connection, embedded: server, cacheMaxAgeMs: 5_000 });
  return {
    server,
    access: current,
    bumpAll: () => bumpVersions(database.connection, SCOPES),
    commands,
    resetCommands: () => {
      commands.length = 0;
    },
    stop: async () => {
      await database.close();
      current = null;
    },
  };
}
