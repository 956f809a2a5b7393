/**
 * Internal test helper: a fresh database through `connectDatabase()`, so service tests run with the
 * production mongoose settings (sanitised filters, strict queries): an in-memory embedded server,
 * or in uri mode (test/helpers/database-mode.ts) a new database on the shared store process.
 */
import mongoose from 'mongoose';
import { connectDatabase } from '../../src/db/connect-database';
import { INCLUDE_PENDING_IMPORTS } from '../../src/import/pending-import-visibility';
import { testStoreUri, uniqueDatabaseName } from '../helpers/database-mode';

export interface TestDatabase {
  /** Empties every collection of every registered model (indexes stay), pending imports' members and teams included. */
  clear(): Promise<void>;
  stop(): Promise<void>;
}

export async function startTestDatabase(): Promise<TestDatabase> {
  const storeUri = testStoreUri();
  const database =
    storeUri === null
      ? await connectDatabase({ inMemory: true })
      : await connectDatabase({ uri: storeUri, dbName: uniqueDatabaseName() });
  await Promise.all(mongoose.modelNames().map((name) => mongoose.model(name).init()));
  return {
    async clear() {
      // Members and teams of an uncommitted import too, which queries skip unless told.
      await Promise.all(
        mongoose
          .modelNames()
          .map((name) => mongoose.model(name).deleteMany({}).setOptions(INCLUDE_PENDING_IMPORTS)),
      );
    },
    async stop() {
      // Uri mode: the store outlives this file; its database goes, so the store stays small.
      if (storeUri !== null) await database.connection.dropDatabase().catch(() => undefined);
      await database.close();
    },
  };
}
