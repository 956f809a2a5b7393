import type { Document } from 'bson';
import { Query } from 'mingo/query';
import * as builtin from 'mingo/operators/query';
import type { Options } from 'mingo/types/types';
import { StoreError } from '../errors';
import { isPlainObject } from '../storage/document-paths';
import { compareBinary, isBinary } from './binary-values';
import { bitTest, maskPositions, type BitTestMode } from './bit-test';
import { originalOf } from './mingo-view';
import { BSON_TYPE_CODES, bsonTypeCode, NUMERIC_TYPE_CODES } from './bson-types';
import { someValueAtPath } from './path-values';

type QueryOperator = (
  selector: string,
  value: unknown,
  options: Options,
) => (obj: Document) => boolean;

/**
 * The query operators where mingo's answer differs from mongod's; they replace mingo's own in
 * the store's mingo context (mingo-options.ts), so they apply wherever mingo meets them: filters,
 * `$elemMatch`, `$not`, `$match` stages, update conditions.
 */
export const storeQueryOperators: Record<string, QueryOperator> = {
  $type,
  $all,
  $in: (selector, value, options) =>
    inStrings(value, selector) ?? builtin.$in(selector, value, options),
  $nin: (selector, value, options) => {
    const test = inStrings(value, selector);
    return test ? (obj) => !test(obj) : builtin.$nin(selector, value, options);
  },
  $gt: binaryAware(builtin.$gt, (c) => c > 0),
  $gte: binaryAware(builtin.$gte, (c) => c >= 0),
  $lt: binaryAware(builtin.$lt, (c) => c < 0),
  $lte: binaryAware(builtin.$lte, (c) => c <= 0),
  $bitsAllSet: bitsOperator('$bitsAllSet', 'allSet'),
  $bitsAllClear: bitsOperator('$bitsAllClear', 'allClear'),
  $bitsAnySet: bitsOperator('$bitsAnySet', 'anySet'),
  $bitsAnyClear: bitsOperator('$bitsAnyClear', 'anyClear'),
};

/**
 * `$in` over strings only (ids, where a list is long): the strings are put in a Set once per
 * query. Mingo's own `$in` hashes its whole list again for every document it tests, so a find of
 * n documents by n ids cost n² (6 000 ids: seconds). Null when the list holds anything else.
 */
function inStrings(value: unknown, selector: string): ((obj: Document) => boolean) | null {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) return null;
  const strings = new Set<string>(value);
  return (obj) => someValueAtPath(obj, selector, (v) => typeof v === 'string' && strings.has(v));
}

/**
 * `$type`: every BSON type told apart (mingo folds the numeric ones together). It reads the
 * stored document behind mingo's view, where the numeric types are.
 */
function $type(selector: string, value: unknown): (obj: Document) => boolean {
  const codes = new Set<number>();
  for (const t of Array.isArray(value) ? value : [value])
    for (const code of typeCodes(t)) codes.add(code);
  return (obj) => someValueAtPath(originalOf(obj), selector, (v) => codes.has(bsonTypeCode(v)));
}

function typeCodes(t: unknown): Iterable<number> {
  if (typeof t === 'string') {
    if (t === 'number') return NUMERIC_TYPE_CODES;
    const code = BSON_TYPE_CODES[t];
    if (code === undefined) throw new StoreError('BadValue', `Unknown type name alias: ${t}`);
    return [code];
  }
  const n = typeof t === 'number' ? t : Number((t as { valueOf?(): unknown } | null)?.valueOf?.());
  if (!NUMERIC_TYPE_CODES.has(bsonTypeCode(t)) || !Number.isInteger(n)) {
    throw new StoreError('TypeMismatch', 'type must be represented as a number or a string');
  }
  if (!Object.values(BSON_TYPE_CODES).includes(n))
    throw new StoreError('BadValue', `Invalid numerical type code: ${n}`);
  return [n];
}

const isElemMatch = (v: unknown): boolean => isPlainObject(v) && Object.keys(v)[0] === '$elemMatch';

/**
 * `$all`: the conjunction of an equality (or regex, or `$elemMatch`) per element, as mongod parses
 * it, so a scalar field holding the one value matches too (mingo requires an array).
 */
function $all(selector: string, value: unknown, options: Options): (obj: Document) => boolean {
  if (!Array.isArray(value)) throw new StoreError('BadValue', '$all needs an array');
  if (value.length === 0) return () => false;
  if (isElemMatch(value[0])) {
    if (!value.every(isElemMatch))
      throw new StoreError('BadValue', '$all/$elemMatch has to be consistent');
  } else if (
    value.some((v) => isPlainObject(v) && Object.keys(v)[0]?.startsWith('$') && !isElemMatch(v))
  ) {
    throw new StoreError('BadValue', 'no $ expressions in $all');
  }
  const conditions = value.map((v) => ({
    [selector]: isElemMatch(v) || v instanceof RegExp ? v : { $eq: v },
  }));
  const query = new Query({ $and: conditions }, options);
  return (obj) => query.test(obj);
}

/** A range operator that orders BinData operands as mongod does; other operands stay mingo's. */
function binaryAware(
  mingoOperator: QueryOperator,
  accept: (comparison: number) => boolean,
): QueryOperator {
  return (selector, value, options) => {
    if (!isBinary(value)) return mingoOperator(selector, value, options);
    return (obj) =>
      someValueAtPath(obj, selector, (v) => isBinary(v) && accept(compareBinary(v, value)));
  };
}

function bitsOperator(name: string, mode: BitTestMode): QueryOperator {
  return (selector, value) => {
    const positions = maskPositions(name, value);
    return (obj) => someValueAtPath(obj, selector, (v) => bitTest(v, positions, mode));
  };
}
