/** Internal test helper: a fresh in-memory embedded server with mongoose connected, for service tests. */
import mongoose from 'mongoose';
import { EmbeddedMongoServer } from '../../src/store/server';

export interface TestDatabase {
  /** Empties every collection of every registered model (indexes stay). */
  clear(): Promise<void>;
  stop(): Promise<void>;
}

export async function startTestDatabase(): Promise<TestDatabase> {
  const server = await EmbeddedMongoServer.start();
  await mongoose.connect(server.uri, { serverSelectionTimeoutMS: 3_000 });
  await Promise.all(mongoose.modelNames().map((name) => mongoose.model(name).init()));
  return {
    async clear() {
      await Promise.all(mongoose.modelNames().map((name) => mongoose.model(name).deleteMany({})));
    },
    async stop() {
      await mongoose.disconnect();
      await server.stop();
    },
  };
}
