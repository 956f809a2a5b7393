import type { Document } from 'bson';
import { StoreError } from '../errors';
import { canonicalKey } from '../storage/canonical-key';
import type { Catalog } from '../storage/catalog';
import { ID_INDEX_NAME } from '../storage/collection';
import { getPath, isPlainObject } from '../storage/document-paths';
import type { Mutation } from '../storage/mutation';
import { UniqueChecker } from '../storage/unique-checker';
import { validateCollectionName, validateDbName } from '../storage/namespace';
import { DocumentValidator } from '../query/document-validator';
import { applyUpdate } from '../query/update-document';
import { Collection } from '../storage/collection';
import { withId } from './write-helpers';

function target(spec: unknown, db: string, stage: string): { db: string; coll: string } {
  if (typeof spec === 'string') return { db, coll: validateCollectionName(db, spec) };
  if (isPlainObject(spec) && typeof spec.coll === 'string') {
    const targetDb = typeof spec.db === 'string' ? validateDbName(spec.db) : db;
    return { db: targetDb, coll: validateCollectionName(targetDb, spec.coll) };
  }
  throw new StoreError(
    'TypeMismatch',
    `${stage} requires a collection name or {db, coll}, got ${JSON.stringify(spec)}`,
  );
}

/**
 * `$out`: replaces the target's documents with the results in one batch, keeping its indexes and
 * options (as mongod does); results violating a unique index or, unless `bypassValidation`, its
 * validator fail the stage and change nothing.
 */
export function planOut(
  catalog: Catalog,
  db: string,
  spec: unknown,
  results: Document[],
  bypassValidation = false,
): Mutation[] {
  const { db: outDb, coll: name } = target(spec, db, '$out');
  const existing = catalog.collection(outDb, name);
  const ns = `${outDb}.${name}`;
  const scratch = new Collection(outDb, name, existing?.options ?? {});
  for (const index of existing?.indexes.values() ?? [])
    if (index.name !== ID_INDEX_NAME) scratch.addIndex(index.spec);
  const checker = new UniqueChecker(scratch);
  const validator = bypassValidation ? null : DocumentValidator.of(scratch.options);
  const docs = results.map(withId);
  for (const doc of docs) {
    const invalid = validator?.check(doc);
    if (invalid) throw invalid;
    const dup = checker.check(doc);
    if (dup) throw dup;
    checker.accept(doc, false);
  }
  const specs = [...scratch.secondaryIndexes()].map((i) => i.spec as Document);
  const batch: Mutation[] = [];
  if (existing) batch.push({ op: 'dropCollection', ns });
  batch.push({ op: 'createCollection', ns, options: scratch.options });
  if (specs.length) batch.push({ op: 'createIndexes', ns, specs });
  if (docs.length) batch.push({ op: 'insert', ns, docs });
  return batch;
}

/**
 * `$merge` into a collection: whenMatched merge/replace/keepExisting/fail/pipeline, whenNotMatched
 * insert/discard/fail; the documents it writes meet the target's validator unless `bypassValidation`.
 */
export function planMerge(
  catalog: Catalog,
  db: string,
  spec: unknown,
  results: Document[],
  bypassValidation = false,
): Mutation[] {
  const options: Document = isPlainObject(spec) && 'into' in spec ? spec : { into: spec };
  const { db: outDb, coll: name } = target(options.into, db, '$merge');
  const on: string[] =
    options.on === undefined
      ? ['_id']
      : Array.isArray(options.on)
        ? options.on.map(String)
        : [String(options.on)];
  const whenMatched = options.whenMatched ?? 'merge';
  const whenNotMatched = options.whenNotMatched ?? 'insert';
  const existing = catalog.collection(outDb, name);
  const coll = existing ?? new Collection(outDb, name, {});
  const checker = new UniqueChecker(coll);
  const validator = bypassValidation ? null : DocumentValidator.of(coll.options);
  const inserts: Document[] = [];
  const replaces = new Map<string, Document>();
  for (const result of results) {
    const match = findByFields(coll, on, result, replaces);
    if (!match) {
      if (whenNotMatched === 'discard') continue;
      if (whenNotMatched === 'fail')
        throw new StoreError(
          'Location13113',
          '$merge could not find a matching document in the target collection for at least one document in the source collection',
        );
      const doc = withId(result);
      const invalid = validator?.check(doc);
      if (invalid) throw invalid;
      const dup = checker.check(doc);
      if (dup) throw dup;
      checker.accept(doc, false);
      inserts.push(doc);
      continue;
    }
    let next: Document;
    if (whenMatched === 'keepExisting') continue;
    if (whenMatched === 'fail') {
      throw coll.indexes.get(ID_INDEX_NAME)!.duplicateError(coll.ns, [match._id]);
    } else if (whenMatched === 'replace') {
      next = { ...result, _id: match._id };
    } else if (whenMatched === 'merge') {
      next = { ...match, ...result, _id: match._id };
    } else if (Array.isArray(whenMatched)) {
      next = applyUpdate(match, whenMatched).doc;
    } else {
      throw new StoreError(
        'BadValue',
        `Enumeration value '${String(whenMatched)}' for field 'whenMatched' is not a valid value.`,
      );
    }
    const invalid = validator?.check(next, match);
    if (invalid) throw invalid;
    const dup = checker.check(next, true);
    if (dup) throw dup;
    checker.accept(next, true);
    replaces.set(canonicalKey(next._id), next);
  }
  const ns = `${outDb}.${name}`;
  const batch: Mutation[] = existing ? [] : [{ op: 'createCollection', ns, options: {} }];
  if (inserts.length) batch.push({ op: 'insert', ns, docs: inserts });
  if (replaces.size) batch.push({ op: 'replace', ns, docs: [...replaces.values()] });
  return batch;
}

function findByFields(
  coll: Collection,
  on: string[],
  doc: Document,
  pending: Map<string, Document>,
): Document | undefined {
  if (on.length === 1 && on[0] === '_id') {
    if (doc._id === undefined) return undefined;
    return pending.get(canonicalKey(doc._id)) ?? coll.getById(doc._id);
  }
  const wanted = on.map((f) => canonicalKey(getPath(doc, f)));
  for (const candidate of [...pending.values(), ...coll.docs.values()]) {
    if (on.every((f, i) => canonicalKey(getPath(candidate, f)) === wanted[i]))
      return pending.get(canonicalKey(candidate._id)) ?? candidate;
  }
  return undefined;
}
