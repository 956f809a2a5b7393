import { MongoNetworkTimeoutError } from 'mongodb';
import type { Connection, MongooseQueryMiddleware, Schema } from 'mongoose';
import { countersOf, type Scope } from './scopes';

/** One small document, `{ _id: 'versions', <scope>: <counter>, ... }`, in this collection. */
export const VERSIONS_COLLECTION = 'data_versions';
export const VERSIONS_ID = 'versions';

/**
 * The longest wait for the counters: about as long as the driver takes to fail an operation the
 * database stopped answering (src/db/connect-database.ts).
 */
const VERSIONS_READ_TIMEOUT_MS = 3_000;

/**
 * Adds 1 to the counters of `scopes`, as one `$inc` (upserting the document). Called after the
 * write it announces was acknowledged, so whoever reads the new counter also reads the write.
 */
export async function bumpVersions(connection: Connection, scopes: readonly Scope[]): Promise<void> {
  if (scopes.length === 0) return;
  const inc = Object.fromEntries(scopes.map((scope) => [scope, 1]));
  await connection
    .collection<{ _id: string }>(VERSIONS_COLLECTION)
    .updateOne({ _id: VERSIONS_ID }, { $inc: inc }, { upsert: true });
}

/**
 * The counters as stored now: one `find` command of one document in one batch. Sent as a command
 * rather than through a cursor (`findOne`), which would build and close a cursor around the one
 * reply: with `MONGODB_URI` this read is made once per turn of the event loop under load, and the
 * cursor's bookkeeping was most of its cost in the gateway.
 */
export async function readVersions(connection: Connection): Promise<Record<Scope, number>> {
  const reply = await bounded(
    connection.db!.command({ find: VERSIONS_COLLECTION, filter: { _id: VERSIONS_ID }, limit: 1, singleBatch: true }),
    'the version read',
  );
  return countersOf((reply as { cursor?: { firstBatch?: Array<Partial<Record<string, unknown>>> } }).cursor?.firstBatch?.[0]);
}

/**
 * `read`, or a MongoNetworkTimeoutError once VERSIONS_READ_TIMEOUT_MS have passed: bounded like
 * server selection, a read the database does not answer fails as unavailable (503) rather than
 * holding every request waiting for it until its time budget runs out.
 */
export async function bounded<T>(read: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new MongoNetworkTimeoutError(`the database did not answer ${what} within ${VERSIONS_READ_TIMEOUT_MS} ms`)), VERSIONS_READ_TIMEOUT_MS);
  });
  try {
    return await Promise.race([read, late]);
  } finally {
    clearTimeout(timer);
    read.catch(() => undefined); // settled late, if ever: nobody waits for it any more
  }
}

const QUERY_WRITES: MongooseQueryMiddleware[] = ['updateOne', 'updateMany', 'deleteOne', 'deleteMany', 'findOneAndUpdate', 'findOneAndDelete', 'findOneAndReplace', 'replaceOne'];
type Next = (error?: Error) => void;

/**
 * Schema plugin of a mutable model: every write through the model (queries, `insertMany`,
 * `bulkWrite`, a document's `save`, so `create` too) bumps the scope's counter before the write's
 * promise resolves, also when the write failed part-way (an unordered insert may have stored some
 * documents).
 * Writes through the collection object directly bypass this: the few that exist bump themselves.
 */
export function versionedScope(scope: Scope): (schema: Schema) => void {
  return (schema) => {
    const bumpOn = (connection: Connection) => bumpVersions(connection, [scope]);
    const afterError = (connection: Connection, error: Error, next: Next) => {
      bumpOn(connection).then(
        () => next(error),
        () => next(error),
      );
    };
    schema.post(QUERY_WRITES, async function (this: { model: { db: Connection } }) {
      await bumpOn(this.model.db);
    });
    schema.post(QUERY_WRITES, function (this: { model: { db: Connection } }, error: Error, _res: unknown, next: Next) {
      afterError(this.model.db, error, next);
    });
    for (const hook of ['insertMany', 'bulkWrite'] as const) {
      schema.post(hook, async function (this: { db: Connection }) {
        await bumpOn(this.db);
      });
      schema.post(hook, function (this: { db: Connection }, error: Error, _res: unknown, next: Next) {
        afterError(this.db, error, next);
      });
    }
    schema.post('save', async function (this: { constructor: { db: Connection } }) {
      await bumpOn(this.constructor.db);
    });
    schema.post('save', function (this: { constructor: { db: Connection } }, error: Error, _res: unknown, next: Next) {
      afterError(this.constructor.db, error, next);
    });
  };
}
