import { ObjectId, type Document } from 'bson';
import { asStoreError, StoreError } from '../errors';
import { describeType } from '../query/filter';
import { isPlainObject } from '../storage/document-paths';
import { Collection } from '../storage/collection';
import type { Mutation } from '../storage/mutation';
import type { CommandContext } from './command';

/** The collection, or an empty stand-in (for planning writes that will create it). */
export function collectionForWrite(
  ctx: CommandContext,
  name: string,
): { coll: Collection; created: Mutation[] } {
  const existing = ctx.catalog.collection(ctx.db, name);
  if (existing) return { coll: existing, created: [] };
  return {
    coll: new Collection(ctx.db, name, {}),
    created: [{ op: 'createCollection', ns: `${ctx.db}.${name}`, options: {} }],
  };
}

/** Gives a new document an `_id` (an ObjectId, first field) and checks the one it has. */
export function withId(doc: Document): Document {
  if (doc._id === undefined) return { _id: new ObjectId(), ...doc };
  if (Array.isArray(doc._id)) throw new StoreError('BadValue', "can't use an array for _id");
  if (
    doc._id instanceof RegExp ||
    (doc._id as { _bsontype?: string })?._bsontype === 'BSONRegExp'
  ) {
    throw new StoreError('BadValue', "can't use a regex for _id");
  }
  if (Object.keys(doc)[0] === '_id') return doc;
  const { _id, ...rest } = doc;
  return { _id, ...rest };
}

export function requireDocument(v: unknown, what: string): Document {
  if (!isPlainObject(v)) {
    throw new StoreError('TypeMismatch', `${what} must be an object, got ${describeType(v)}`);
  }
  return v;
}

/**
 * Runs a write command's statements in order, the way mongod does: a statement that fails with a
 * StoreError becomes a `writeError` at its index; ordered writes stop there, unordered ones go on.
 * Anything else is a bug and propagates. A statement returns the promise of its commit, or hands
 * it to `track` before failing when it committed a partial effect (a multi-update stopped by a
 * duplicate key): the answer waits until every statement's writes are durable.
 */
export async function runStatements(
  statements: readonly unknown[],
  ordered: boolean,
  run: (
    statement: unknown,
    index: number,
    track: (commit: Promise<void>) => void,
  ) => Promise<void> | void,
): Promise<Document[]> {
  const writeErrors: Document[] = [];
  const durable: Array<Promise<void> | void> = [];
  const track = (commit: Promise<void>): void => void durable.push(commit);
  for (let i = 0; i < statements.length; i++) {
    try {
      durable.push(run(statements[i], i, track));
    } catch (err) {
      const known = asStoreError(err);
      if (!known) throw err;
      writeErrors.push(known.toWriteError(i));
      if (ordered) break;
    }
  }
  await Promise.all(durable);
  return writeErrors;
}
