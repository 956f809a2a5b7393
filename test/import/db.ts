/**
 * Internal test helper: a fresh in-memory embedded database through `connectDatabase()`, so service
 * tests run with the production mongoose settings (sanitised filters, strict queries).
 */
import mongoose from 'mongoose';
import { connectDatabase } from '../../src/db/connect-database';

export interface TestDatabase {
  /** Empties every collection of every registered model (indexes stay). */
  clear(): Promise<void>;
  stop(): Promise<void>;
}

export async function startTestDatabase(): Promise<TestDatabase> {
  const database = await connectDatabase({ inMemory: true });
  await Promise.all(mongoose.modelNames().map((name) => mongoose.model(name).init()));
  return {
    async clear() {
      await Promise.all(mongoose.modelNames().map((name) => mongoose.model(name).deleteMany({})));
    },
    stop: () => database.close(),
  };
}
