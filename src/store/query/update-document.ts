import type { Document } from 'bson';
import { Aggregator, update as mingoUpdate } from './mingo';
import { StoreError } from '../errors';
import { canonicalKey } from '../storage/canonical-key';
import { cloneDocument, getPath, isPlainObject } from '../storage/document-paths';
import { withDbRefFields } from './dbref-fields';
import { mingoOptions } from './mingo-options';
import { retype, viewOf } from './mingo-view';
import { comparableOperands, typeArithmeticResults } from './update-types';

const UPDATE_OPERATORS = new Set([
  '$set', '$unset', '$inc', '$mul', '$rename', '$min', '$max', '$currentDate',
  '$push', '$pull', '$pullAll', '$addToSet', '$pop', '$bit', '$setOnInsert',
]);
const PIPELINE_UPDATE_STAGES = new Set([
  '$addFields', '$set', '$project', '$unset', '$replaceRoot', '$replaceWith',
]);

export type UpdateKind = 'operators' | 'replacement' | 'pipeline';

/** Classifies and validates an update argument before any document is touched. */
export function updateKind(update: unknown): UpdateKind {
  if (Array.isArray(update)) {
    for (const stage of update) {
      const name = isPlainObject(stage) ? Object.keys(stage)[0] : undefined;
      if (!name || !PIPELINE_UPDATE_STAGES.has(name)) {
        throw new StoreError('InvalidOptions', `${name ?? 'stage'} is not allowed to be used within an update`);
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
    throw new StoreError('FailedToParse', `Unknown modifier: ${field}. Expected a valid update modifier or pipeline-style update specified as an array`);
  }
  const paths: string[] = [];
  for (const op of operators) {
    if (!UPDATE_OPERATORS.has(op)) {
      throw new StoreError('FailedToParse', `Unknown modifier: ${op}. Expected a valid update modifier or pipeline-style update specified as an array`);
    }
    const args = update[op];
    if (!isPlainObject(args)) {
      throw new StoreError('FailedToParse', `Modifiers operate on fields but we found type ${Array.isArray(args) ? 'array' : typeof args} instead. For example: {$mod: {<field>: ...}} not {$set: ${JSON.stringify(args)}}`);
    }
    for (const [path, arg] of Object.entries(args)) {
      paths.push(path);
      if (op === '$rename') paths.push(String(arg));
      if ((op === '$inc' || op === '$mul') && !isNumeric(arg)) {
        throw new StoreError('TypeMismatch', `Cannot ${op === '$inc' ? 'increment' : 'multiply'} with non-numeric argument: {${path}: ${JSON.stringify(arg)}}`);
      }
    }
  }
  checkConflicts(paths);
  return 'operators';
}

/** mongod refuses two operators touching the same path or a path and its prefix. */
function checkConflicts(paths: string[]): void {
  const sorted = paths.map((p) => p.replace(/\.\$(\[[^\]]*\])?/g, '')).sort();
  for (let i = 1; i < sorted.length; i++) {
    const [a, b] = [sorted[i - 1], sorted[i]];
    if (a === b || b.startsWith(`${a}.`)) {
      throw new StoreError('ConflictingUpdateOperators', `Updating the path '${b}' would create a conflict at '${a}'`);
    }
  }
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
  /** True when building the document of an upsert: `$setOnInsert` applies. */
  inserting?: boolean;
}

/**
 * Applies an update to a copy of `doc` and returns the new version (the stored document is
 * never modified) and whether anything changed. `_id` may not change.
 */
export function applyUpdate(doc: Document, update: unknown, options: UpdateOptions = {}): { doc: Document; changed: boolean } {
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
      changed = canonicalKey(next) !== canonicalKey(doc);
      break;
    }
    case 'pipeline': {
      const out = new Aggregator(viewOf(update as Document[]), mingoOptions()).run([cloneDocument(viewOf(doc))]);
      next = retype(out[0] as Document, doc);
      changed = canonicalKey(next) !== canonicalKey(doc);
      break;
    }
    case 'operators': {
      const { $setOnInsert, ...ops } = update as Document;
      if (options.inserting && $setOnInsert) ops.$set = { ...(ops.$set ?? {}), ...$setOnInsert };
      // mingo updates a copy of the document's view (mingo-view.ts); the stored numeric types
      // are then put back, and given to the results of arithmetic as mongod types them.
      next = cloneDocument(viewOf(doc));
      takeIdAssignments(next, ops);
      checkNumericTargets(next, ops);
      const filter = options.filter && withDbRefFields(viewOf(options.filter));
      const paths = Object.keys(ops).length
        ? mingoUpdate(next, comparableOperands(ops), viewOf(options.arrayFilters), filter, { cloneMode: 'deep', queryOptions: mingoOptions() })
        : [];
      next = retype(next, doc);
      typeArithmeticResults(next, doc, ops);
      changed = paths.length > 0;
      break;
    }
  }
  if (doc._id !== undefined && canonicalKey(next._id) !== canonicalKey(doc._id)) {
    throw new StoreError('ImmutableField', "Performing an update on the path '_id' would modify the immutable field '_id'");
  }
  if (next._id !== undefined && Object.keys(next)[0] !== '_id') {
    const { _id, ...rest } = next;
    next = { _id, ...rest };
  }
  return { doc: next, changed };
}

const IMMUTABLE_ID = "Performing an update on the path '_id' would modify the immutable field '_id'";

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
        else if (canonicalKey(doc._id) !== canonicalKey(args._id)) throw new StoreError('ImmutableField', IMMUTABLE_ID);
        const { _id: _ignored, ...rest } = args;
        ops[op] = rest;
        continue;
      }
      throw new StoreError('ImmutableField', IMMUTABLE_ID);
    }
  }
}

function checkNumericTargets(doc: Document, ops: Document): void {
  for (const op of ['$inc', '$mul']) {
    for (const path of Object.keys(ops[op] ?? {})) {
      const current = getPath(doc, path);
      if (current !== undefined && !isNumeric(current)) {
        throw new StoreError('TypeMismatch', `Cannot apply ${op} to a value of non-numeric type. {_id: ${JSON.stringify(doc._id)}} has the field '${path}' of non-numeric type ${typeof current === 'string' ? 'string' : typeof current}`);
      }
    }
  }
}
