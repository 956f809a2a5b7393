import type { Document } from 'bson';
import { StoreError } from '../errors';
import { parseCollation } from '../query/collation';
import { describeType } from '../query/filter';
import { normaliseIndexSpec, sameIndexOptions, type IndexSpec } from '../storage/index-spec';
import { Index } from '../storage/index';
import type { Mutation } from '../storage/mutation';
import { collectionArg, requiredArray } from './arguments';
import type { Command } from './command';
import { collectionForWrite } from './write-helpers';

/**
 * `createIndexes`: existing identical indexes are a no-op; a name or key clash with other options
 * is refused (85/86); a unique index over documents that already collide fails with E11000.
 */
export const createIndexesCommand: Command = {
  name: 'createIndexes',
  async run(ctx) {
    const name = collectionArg(ctx, 'createIndexes');
    const specs = requiredArray(ctx.body, 'indexes', 'createIndexes').map(normaliseIndexSpec);
    if (specs.length === 0)
      throw new StoreError('BadValue', 'Must specify at least one index to create');
    const { coll, created } = collectionForWrite(ctx, name);
    for (const spec of specs) {
      checkTtl(spec);
      withCollation(spec, coll.options);
    }
    const before = coll.indexes.size;
    const fresh: IndexSpec[] = [];
    for (const spec of specs) {
      if (spec.name === '_id_' || JSON.stringify(spec.key) === '{"_id":1}') {
        if (spec.unique === false || spec.sparse)
          throw new StoreError(
            'BadValue',
            "The field 'unique' is not valid for an _id index specification",
          );
        continue;
      }
      const sameName =
        coll.indexes.get(spec.name) ??
        fresh.map((s) => new Index(s)).find((i) => i.name === spec.name);
      if (sameName) {
        if (sameIndexOptions(sameName.spec, spec)) continue;
        if (JSON.stringify(sameName.spec.key) === JSON.stringify(spec.key)) {
          throw new StoreError(
            'IndexOptionsConflict',
            `An existing index has the same name as the requested index. When index names are not specified, they are auto generated and can cause conflicts. Please refer to our documentation. Requested index: ${describe(spec)}, existing index: ${describe(sameName.spec)}`,
          );
        }
        throw new StoreError(
          'IndexKeySpecsConflict',
          `An existing index has the same name as the requested index. When index names are not specified, they are auto generated and can cause conflicts. Please refer to our documentation. Requested index: ${describe(spec)}, existing index: ${describe(sameName.spec)}`,
        );
      }
      // Two indexes may share a key pattern when their collations differ.
      const sameKey = [...coll.indexes.values()].find(
        (i) =>
          JSON.stringify(i.spec.key) === JSON.stringify(spec.key) &&
          JSON.stringify(i.spec.collation ?? null) === JSON.stringify(spec.collation ?? null),
      );
      if (sameKey) {
        if (sameIndexOptions(sameKey.spec, spec)) continue; // same index under another name: mongod refuses only differing options
        throw new StoreError(
          'IndexOptionsConflict',
          `Index already exists with a different name: ${sameKey.name}`,
        );
      }
      // Building the Index compiles partialFilterExpression: a bad one fails here, not in apply.
      const index = new Index(spec);
      if (spec.unique) checkExistingUnique(coll.ns, index, coll.docs);
      fresh.push(spec);
    }
    const batch: Mutation[] = [...created];
    if (fresh.length) batch.push({ op: 'createIndexes', ns: coll.ns, specs: fresh as Document[] });
    await ctx.catalog.commit(batch);
    return {
      numIndexesBefore: before,
      numIndexesAfter: before + fresh.length,
      createdCollectionAutomatically: created.length > 0,
      ...(fresh.length === 0 ? { note: 'all indexes already exist' } : {}),
    };
  },
};

/**
 * The index's collation as mongod records it: every field filled in, the collection's default
 * when the spec names none, and none at all for the simple collation.
 */
function withCollation(spec: IndexSpec, collectionOptions: Document): void {
  const given = spec.collation ?? collectionOptions.collation;
  const collation = given === undefined ? null : parseCollation(given);
  if (collation) spec.collation = collation.spec;
  else delete spec.collation;
}

/** mongod's checks of a TTL index: a whole number of seconds in [0, 2^31), on a single field. */
function checkTtl(spec: IndexSpec): void {
  if (!('expireAfterSeconds' in spec)) return;
  const raw = spec.expireAfterSeconds;
  const bsonType = (raw as { _bsontype?: string } | null)?._bsontype;
  const seconds =
    typeof raw === 'number'
      ? raw
      : bsonType === 'Long' ||
          bsonType === 'Int32' ||
          bsonType === 'Double' ||
          bsonType === 'Decimal128'
        ? Number(String(raw))
        : undefined;
  const refuse = (reason: string): never => {
    throw new StoreError(
      'CannotCreateIndex',
      `TTL index 'expireAfterSeconds' option ${reason}. Index spec: ${JSON.stringify(spec)}`,
    );
  };
  if (seconds === undefined)
    refuse(`must be numeric, but received a type of '${describeType(raw)}'`);
  if (Number.isNaN(seconds)) refuse('must not be NaN');
  if (Math.trunc(seconds!) < 0) refuse('cannot be less than 0');
  if (Math.trunc(seconds!) > 2 ** 31 - 1) refuse('must be within the range of a 32-bit integer');
  if (Object.keys(spec.key).length !== 1) {
    throw new StoreError(
      'CannotCreateIndex',
      `TTL indexes are single-field indexes, compound indexes do not support TTL. Index spec: ${JSON.stringify(spec)}`,
    );
  }
}

function describe(spec: IndexSpec): string {
  return JSON.stringify({
    v: spec.v,
    key: spec.key,
    name: spec.name,
    ...(spec.unique ? { unique: true } : {}),
  });
}

function checkExistingUnique(ns: string, index: Index, docs: Map<string, Document>): void {
  const seen = new Map<string, string>();
  for (const [id, doc] of docs) {
    for (const { key, values } of index.keysFor(doc)) {
      const holder = seen.get(key);
      if (holder !== undefined && holder !== id) throw index.duplicateError(ns, values);
      seen.set(key, id);
    }
  }
}
