import type { Document } from 'bson';
import { StoreError } from '../errors';
import { canonicalKey } from '../storage/canonical-key';
import { cloneDocument, isPlainObject } from '../storage/document-paths';
import { formatValue } from '../storage/format-key';
import { sameBson } from '../storage/stored-values';
import { collatedEqual } from './collated-filter';
import type { Collation } from './collation';
import { bsonTypeName } from './bson-types';
import { locate, ownValue, removeField, writeField } from './field-access';
import { compileFilter } from './filter';

/**
 * The update operators the store applies itself, on concrete paths, where mingo's differ from
 * mongod: field names (`__proto__`, `$`-prefixed) that mingo refuses, mongod's PathNotViable
 * errors, BSON-exact values, and `$pull` conditions with `$or`/`$and`/`$nor`.
 */

/** Each operator below applies one write in place and says whether it changed the document. */

export function setField(doc: Document, path: string, arg: unknown): boolean {
  const slot = locate(doc, path, 'create')!;
  const value = cloneDocument(arg);
  writeField(slot.container, slot.key, value);
  return slot.value === undefined || !sameBson(slot.value, value);
}

export function unsetField(doc: Document, path: string): boolean {
  const slot = locate(doc, path, 'read');
  if (!slot || slot.value === undefined) return false;
  removeField(slot.container, slot.key);
  return true;
}

/** `$rename`: the value moves as an `$unset` of the source and a `$set` of the target. */
export function renameField(doc: Document, from: string, to: string): boolean {
  const slot = locate(doc, from, 'read');
  if (!slot || slot.value === undefined) return false;
  refuseArrayOnPath(doc, from, 'source');
  refuseArrayOnPath(doc, to, 'destination');
  removeField(slot.container, slot.key);
  setField(doc, to, slot.value);
  return true;
}

/** mongod renames neither from nor to a field inside an array element. */
function refuseArrayOnPath(doc: Document, path: string, which: 'source' | 'destination'): void {
  let cur: unknown = doc;
  for (const part of path.split('.').slice(0, -1)) {
    if (!isPlainObject(cur)) return;
    cur = ownValue(cur, part);
    if (Array.isArray(cur)) {
      throw new StoreError(
        'BadValue',
        `The ${which} field cannot be an array element, '${path}' in doc with ${describeId(doc)} has an array field called '${part}'`,
      );
    }
  }
}

/** `$pull`, its conditions and equalities comparing strings under `collation` (null: bytewise). */
export function pullFromField(
  doc: Document,
  path: string,
  condition: unknown,
  collation: Collation | null,
): boolean {
  const slot = locate(doc, path, 'read');
  if (!slot || slot.value === undefined) return false;
  if (!Array.isArray(slot.value))
    throw new StoreError('BadValue', 'Cannot apply $pull to a non-array value');
  const matches = pullMatcher(condition, collation);
  const kept = slot.value.filter((element) => !matches(element));
  if (kept.length === slot.value.length) return false;
  writeField(slot.container, slot.key, kept);
  return true;
}

// Operators that stand for the document itself rather than for a value's condition.
const TOP_LEVEL_OPERATORS = new Set([
  '$and',
  '$or',
  '$nor',
  '$expr',
  '$where',
  '$text',
  '$comment',
  '$jsonSchema',
]);

/**
 * mongod's three kinds of `$pull` condition: a document whose first field is not a value
 * operator is a query on document elements (`{n: 'a'}`, `{$or: [...]}`); a document of value
 * operators (`{$gte: 6}`) or a regex is a condition on the element itself; anything else is a
 * value the element must equal.
 */
function pullMatcher(
  condition: unknown,
  collation: Collation | null,
): (element: unknown) => boolean {
  if (isPlainObject(condition)) {
    const first = Object.keys(condition)[0];
    if (first === undefined || !first.startsWith('$') || TOP_LEVEL_OPERATORS.has(first)) {
      const query = compileFilter(condition, 'filter', collation);
      return (element) => isPlainObject(element) && query.test(element);
    }
  }
  if (
    isPlainObject(condition) ||
    condition instanceof RegExp ||
    (condition as { _bsontype?: string })?._bsontype === 'BSONRegExp'
  ) {
    const query = compileFilter({ v: condition }, 'filter', collation);
    return (element) => query.test({ v: element });
  }
  if (collation) return (element) => collatedEqual(element, condition, collation);
  const key = canonicalKey(condition);
  return (element) => canonicalKey(element) === key;
}

/** Operators that create the field (and the path to it) when it is missing. */
export const CREATING_OPERATORS = new Set([
  '$set',
  '$inc',
  '$mul',
  '$min',
  '$max',
  '$currentDate',
  '$push',
  '$addToSet',
  '$bit',
]);

/**
 * The current value an operator left to mingo works on, after mongod's errors that mingo would
 * not raise (silently doing nothing instead): a path that cannot be created, and an array
 * operator on a field that is not an array. Null when there is nothing to do: a missing or
 * impossible path for an operator that does not create one (`$pop`, `$pullAll`).
 */
export function checkTarget(doc: Document, op: string, path: string): { value: unknown } | null {
  const creating = CREATING_OPERATORS.has(op);
  const slot = locate(doc, path, creating ? 'check' : 'read');
  if (!slot && !creating) return null;
  const value = slot?.value;
  if (value === undefined) return creating ? { value } : null;
  if (Array.isArray(value)) return { value };
  const type = bsonTypeName(value);
  switch (op) {
    case '$push':
      throw new StoreError(
        'BadValue',
        `The field '${path}' must be an array but is of type ${type} in document {${describeId(doc)}}`,
      );
    case '$addToSet':
      throw new StoreError(
        'BadValue',
        `Cannot apply $addToSet to non-array field. Field named '${slot!.key}' has non-array type ${type}`,
      );
    case '$pop':
      throw new StoreError(
        'TypeMismatch',
        `Path '${path}' contains an element of non-array type '${type}'`,
      );
    case '$pullAll':
      throw new StoreError('BadValue', 'Cannot apply $pull to a non-array value');
  }
  return { value };
}

function describeId(doc: Document): string {
  return doc._id === undefined ? 'no id' : `_id: ${formatValue(doc._id)}`;
}
