import type { Document } from 'bson';
import { StoreError } from '../errors';
import { canonicalKey } from '../storage/canonical-key';
import { cloneDocument, isPlainObject } from '../storage/document-paths';
import { formatValue } from '../storage/format-key';
import { sameBson } from '../storage/stored-values';
import type { Collation } from './collation';
import { locate } from './field-access';
import { Aggregator } from './mingo';
import { mingoOptions } from './mingo-options';
import { retype, viewOf } from './mingo-view';
import { applyWrites, concreteWrites, type FieldWrite } from './operator-writes';
import { checkArrayFilters, checkPositionalParts, isPositional } from './positional-paths';
import { checkConflicts } from './update-conflicts';

const UPDATE_OPERATORS = new Set([
  '$set',
  '$unset',
  '$inc',
  '$mul',
  '$rename',
  '$min',
  '$max',
  '$currentDate',
  '$push',
  '$pull',
  '$pullAll',
  '$addToSet',
  '$pop',
  '$bit',
  '$setOnInsert',
]);
const PIPELINE_UPDATE_STAGES = new Set([
  '$addFields',
  '$set',
  '$project',
  '$unset',
  '$replaceRoot',
  '$replaceWith',
]);

export type UpdateKind = 'operators' | 'replacement' | 'pipeline';

/**
 * Classifies and validates an update argument (and the array filters of an operator update)
 * before any document is touched.
 */
export function updateKind(update: unknown, arrayFilters?: Document[]): UpdateKind {
  if (Array.isArray(update)) {
    for (const stage of update) {
      const name = isPlainObject(stage) ? Object.keys(stage)[0] : undefined;
      if (!name || !PIPELINE_UPDATE_STAGES.has(name)) {
        throw new StoreError(
          'InvalidOptions',
          `${name ?? 'stage'} is not allowed to be used within an update`,
        );
      }
    }
    return 'pipeline';
  }
  if (!isPlainObject(update)) {
    throw new StoreError('FailedToParse', 'Update argument must be either an object or an array');
  }
  const keys = Object.keys(update);
  const operators = keys.filter((k) => k.startsWith('$'));
  if (operators.length === 0) return 'replacement';
  if (operators.length !== keys.length) {
    const field = keys.find((k) => !k.startsWith('$'));
    throw new StoreError(
      'FailedToParse',
      `Unknown modifier: ${field}. Expected a valid update modifier or pipeline-style update specified as an array`,
    );
  }
  const paths: string[] = [];
  for (const op of operators) {
    if (!UPDATE_OPERATORS.has(op)) {
      throw new StoreError(
        'FailedToParse',
        `Unknown modifier: ${op}. Expected a valid update modifier or pipeline-style update specified as an array`,
      );
    }
    const args = update[op];
    if (!isPlainObject(args)) {
      throw new StoreError(
        'FailedToParse',
        `Modifiers operate on fields but we found type ${Array.isArray(args) ? 'array' : typeof args} instead. For example: {$mod: {<field>: ...}} not {$set: ${JSON.stringify(args)}}`,
      );
    }
    for (const [path, arg] of Object.entries(args)) {
      checkPositionalParts(path);
      paths.push(path);
      if (op === '$rename') paths.push(checkRename(path, arg));
      if ((op === '$inc' || op === '$mul') && !isNumeric(arg)) {
        throw new StoreError(
          'TypeMismatch',
          `Cannot ${op === '$inc' ? 'increment' : 'multiply'} with non-numeric argument: {${path}: ${JSON.stringify(arg)}}`,
        );
      }
    }
  }
  checkConflicts(paths);
  if (arrayFilters) checkArrayFilters(paths, arrayFilters, update);
  return 'operators';
}

/** mongod's parse-time checks of one `$rename` field; returns the target. */
function checkRename(from: string, to: unknown): string {
  const element = `${from}: ${formatValue(to)}`;
  if (typeof to !== 'string')
    throw new StoreError('BadValue', `The 'to' field for $rename must be a string: ${element}`);
  if (from === to)
    throw new StoreError(
      'BadValue',
      `The source and target field for $rename must differ: ${element}`,
    );
  if (to.startsWith(`${from}.`) || from.startsWith(`${to}.`)) {
    throw new StoreError(
      'BadValue',
      `The source and target field for $rename must not be on the same path: ${element}`,
    );
  }
  if (from.split('.').some(isPositional))
    throw new StoreError('BadValue', `The source field for $rename may not be dynamic: ${from}`);
  if (to.split('.').some(isPositional))
    throw new StoreError('BadValue', `The destination field for $rename may not be dynamic: ${to}`);
  return to;
}

function isNumeric(v: unknown): boolean {
  if (typeof v === 'number') return true;
  const t = (v as { _bsontype?: string })?._bsontype;
  return t === 'Long' || t === 'Int32' || t === 'Double' || t === 'Decimal128';
}

export interface UpdateOptions {
  arrayFilters?: Document[];
  /** The query, for the positional `$` operator. */
  filter?: Document;
  /** The collation the query and array filters compare strings under (null: bytewise). */
  collation?: Collation | null;
  /** True when building the document of an upsert: `$setOnInsert` applies. */
  inserting?: boolean;
}

/**
 * Applies an update to a copy of `doc` and returns the new version (the stored document is
 * never modified) and whether anything changed. `_id` may not change.
 */
export function applyUpdate(
  doc: Document,
  update: unknown,
  options: UpdateOptions = {},
): { doc: Document; changed: boolean } {
  const kind = updateKind(update);
  let next: Document;
  let changed: boolean;
  switch (kind) {
    case 'replacement': {
      // The new document keeps the old _id (first); a replacement naming another _id is caught below.
      const replacement = update as Document;
      const id = '_id' in replacement ? replacement._id : doc._id;
      next = id === undefined ? {} : { _id: id };
      for (const [k, v] of Object.entries(replacement)) if (k !== '_id') next[k] = v;
      changed = !sameBson(next, doc);
      break;
    }
    case 'pipeline': {
      // mingo runs on the document's view (mingo-view.ts); unchanged values keep their stored types.
      const out = new Aggregator(viewOf(update as Document[]), mingoOptions()).run([
        cloneDocument(viewOf(doc)),
      ]);
      next = retype(out[0] as Document, doc);
      changed = !sameBson(next, doc);
      break;
    }
    case 'operators': {
      const { $setOnInsert, ...ops } = update as Document;
      if (options.inserting && $setOnInsert) ops.$set = { ...(ops.$set ?? {}), ...$setOnInsert };
      next = cloneDocument(doc);
      takeIdAssignments(next, ops);
      const writes = concreteWrites(next, ops, options);
      checkNumericTargets(next, writes);
      changed = applyWrites(next, writes, options.collation ?? null);
      break;
    }
  }
  if (doc._id !== undefined && canonicalKey(next._id) !== canonicalKey(doc._id)) {
    throw new StoreError(
      'ImmutableField',
      "Performing an update on the path '_id' would modify the immutable field '_id'",
    );
  }
  if (next._id !== undefined && Object.keys(next)[0] !== '_id') {
    const { _id, ...rest } = next;
    next = { _id, ...rest };
  }
  return { doc: next, changed };
}

const IMMUTABLE_ID =
  "Performing an update on the path '_id' would modify the immutable field '_id'";

/**
 * mingo refuses every update path on `_id`; mongod allows setting it to its current value, and
 * setting it when building an upsert's document. Those are handled here and removed from `ops`.
 */
function takeIdAssignments(doc: Document, ops: Document): void {
  for (const op of Object.keys(ops)) {
    const args = ops[op] as Document;
    for (const path of Object.keys(args)) {
      if (path !== '_id' && !path.startsWith('_id.')) continue;
      if (op === '$set' && path === '_id') {
        if (doc._id === undefined) doc._id = args._id;
        else if (canonicalKey(doc._id) !== canonicalKey(args._id))
          throw new StoreError('ImmutableField', IMMUTABLE_ID);
        const { _id: _ignored, ...rest } = args;
        ops[op] = rest;
        continue;
      }
      throw new StoreError('ImmutableField', IMMUTABLE_ID);
    }
  }
}

function checkNumericTargets(doc: Document, writes: FieldWrite[]): void {
  for (const { op, path } of writes) {
    if (op === '$inc' || op === '$mul') {
      const current = locate(doc, path, 'read')?.value;
      if (current !== undefined && !isNumeric(current)) {
        throw new StoreError(
          'TypeMismatch',
          `Cannot apply ${op} to a value of non-numeric type. {_id: ${JSON.stringify(doc._id)}} has the field '${path}' of non-numeric type ${typeof current === 'string' ? 'string' : typeof current}`,
        );
      }
    }
  }
}
