/**
 * Internal test helper: a fresh in-memory embedded database through `connectDatabase()`, so service
 * tests run with the production mongoose settings (sanitised filters, strict queries).
 */
import mongoose from 'mongoose';
import { connectDatabase } from '../../src/db/connect-database';
import { INCLUDE_PENDING_IMPORTS } from '../../src/import/pending-import-visibility';

export interface TestDatabase {
  /** Empties every collection of every registered model (indexes stay), pending imports' members and teams included. */
  clear(): Promise<void>;
  stop(): Promise<void>;
}

export async function startTestDatabase(): Promise<TestDatabase> {
  const database = await connectDatabase({ inMemory: true });
  await Promise.all(mongoose.modelNames().map((name) => mongoose.model(name).init()));
  return {
    async clear() {
      // Members and teams of an uncommitted import too, which queries skip unless told.
      await Promise.all(mongoose.modelNames().map((name) => mongoose.model(name).deleteMany({}).setOptions(INCLUDE_PENDING_IMPORTS)));
    },
    stop: () => database.close(),
  };
}
