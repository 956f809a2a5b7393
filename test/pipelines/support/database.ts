/**
 * Internal to the pipeline tests: an in-memory embedded MongoDB server with mongoose connected to
 * it exactly as the gateway connects (`connectDatabase`: strict, sanitised filters), the command
 * names it receives (to count round trips), and the admin principal imports need.
 */
import mongoose from 'mongoose';
import { connectDatabase } from '../../../src/db/connect-database';
import { Role } from '../../../src/auth/role';
import type { Principal } from '../../../src/auth/principal';
import { snapshotCache } from '../../../src/services/snapshot-cache';
import { EmbeddedMongoServer } from '../../../src/store/server';

export const ADMIN: Principal = { subject: 'admin-token', role: Role.ADMIN, memberId: null, teamId: null };

export interface TestDatabase {
  server: EmbeddedMongoServer;
  /** Names of the commands received since the last `resetCommands()` (handshakes and pings excluded). */
  commands: string[];
  resetCommands(): void;
  stop(): Promise<void>;
}

const IGNORED = new Set(['hello', 'ismaster', 'isMaster', 'ping', 'buildInfo', 'buildinfo', 'endSessions']);

export async function startDatabase(): Promise<TestDatabase> {
  const database = await connectDatabase({ inMemory: true, dbName: 'pipelines_test' });
  const server = database.embedded!;
  const commands: string[] = [];
  server.on('command', (name) => {
    if (!IGNORED.has(name)) commands.push(name);
  });
  await Promise.all(Object.values(mongoose.models).map((model) => model.init()));
  snapshotCache.clear();
  return {
    server,
    commands,
    resetCommands: () => {
      commands.length = 0;
    },
    stop: async () => {
      await database.close();
      snapshotCache.clear();
    },
  };
}
