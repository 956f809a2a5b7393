import type { Document } from 'bson';
import { Query } from 'mingo';
import { StoreError } from '../errors';
import { canonicalKey } from '../storage/canonical-key';
import { cloneDocument, isPlainObject } from '../storage/document-paths';
import { formatValue } from '../storage/format-key';
import { bsonTypeName, locate, ownValue, removeField, writeField, type FieldSlot } from './field-access';
import { mingoOptions } from './mingo-options';

/**
 * The update operators the store applies itself, on concrete paths, where mingo's differ from
 * mongod: field names (`__proto__`, `$`-prefixed) that mingo refuses, mongod's PathNotViable
 * errors, BSON-exact values, and `$pull` conditions with `$or`/`$and`/`$nor`.
 */

export function setField(doc: Document, path: string, value: unknown): void {
  const slot = locate(doc, path, true)!;
  writeField(slot.container, slot.key, cloneDocument(value));
}

export function unsetField(doc: Document, path: string): void {
  const slot = locate(doc, path, false);
  if (slot && slot.value !== undefined) removeField(slot.container, slot.key);
}

/** `$rename`: the value moves as an `$unset` of the source and a `$set` of the target. */
export function renameField(doc: Document, from: string, to: string): void {
  const slot = locate(doc, from, false);
  if (!slot || slot.value === undefined) return;
  refuseArrayOnPath(doc, from, 'source');
  refuseArrayOnPath(doc, to, 'destination');
  removeField(slot.container, slot.key);
  setField(doc, to, slot.value);
}

/** mongod renames neither from nor to a field inside an array element. */
function refuseArrayOnPath(doc: Document, path: string, which: 'source' | 'destination'): void {
  let cur: unknown = doc;
  for (const part of path.split('.').slice(0, -1)) {
    if (!isPlainObject(cur)) return;
    cur = ownValue(cur, part);
    if (Array.isArray(cur)) {
      throw new StoreError('BadValue', `The ${which} field cannot be an array element, '${path}' in doc with ${describeId(doc)} has an array field called '${part}'`);
    }
  }
}

export function pullFromField(doc: Document, path: string, condition: unknown): void {
  const slot = locate(doc, path, false);
  if (!slot || slot.value === undefined) return;
  if (!Array.isArray(slot.value)) throw new StoreError('BadValue', 'Cannot apply $pull to a non-array value');
  const matches = pullMatcher(condition);
  const kept = slot.value.filter((element) => !matches(element));
  if (kept.length !== slot.value.length) writeField(slot.container, slot.key, kept);
}

// Operators that stand for the document itself rather than for a value's condition.
const TOP_LEVEL_OPERATORS = new Set(['$and', '$or', '$nor', '$expr', '$where', '$text', '$comment', '$jsonSchema']);

/**
 * mongod's three kinds of `$pull` condition: a document whose first field is not a value
 * operator is a query on document elements (`{n: 'a'}`, `{$or: [...]}`); a document of value
 * operators (`{$gte: 6}`) or a regex is a condition on the element itself; anything else is a
 * value the element must equal.
 */
function pullMatcher(condition: unknown): (element: unknown) => boolean {
  if (isPlainObject(condition)) {
    const first = Object.keys(condition)[0];
    if (first === undefined || !first.startsWith('$') || TOP_LEVEL_OPERATORS.has(first)) {
      const query = new Query(condition, mingoOptions());
      return (element) => isPlainObject(element) && query.test(element);
    }
  }
  if (isPlainObject(condition) || condition instanceof RegExp || (condition as { _bsontype?: string })?._bsontype === 'BSONRegExp') {
    const query = new Query({ v: condition }, mingoOptions());
    return (element) => query.test({ v: element });
  }
  const key = canonicalKey(condition);
  return (element) => canonicalKey(element) === key;
}

/** Operators that create the field (and the path to it) when it is missing. */
export const CREATING_OPERATORS = new Set(['$set', '$inc', '$mul', '$min', '$max', '$currentDate', '$push', '$addToSet', '$bit']);

/**
 * mongod's errors for operators left to mingo, which would otherwise silently do nothing: a path
 * that cannot be created, and an array operator on a field that is not an array.
 */
export function checkTarget(doc: Document, op: string, path: string): FieldSlot | null {
  const slot = locate(doc, path, CREATING_OPERATORS.has(op));
  const value = slot?.value;
  if (value === undefined || Array.isArray(value)) return slot;
  const type = bsonTypeName(value);
  switch (op) {
    case '$push':
      throw new StoreError('BadValue', `The field '${path}' must be an array but is of type ${type} in document {${describeId(doc)}}`);
    case '$addToSet':
      throw new StoreError('BadValue', `Cannot apply $addToSet to non-array field. Field named '${slot!.key}' has non-array type ${type}`);
    case '$pop':
      throw new StoreError('TypeMismatch', `Path '${path}' contains an element of non-array type '${type}'`);
    case '$pullAll':
      throw new StoreError('BadValue', 'Cannot apply $pull to a non-array value');
  }
  return slot;
}

function describeId(doc: Document): string {
  return doc._id === undefined ? 'no id' : `_id: ${formatValue(doc._id)}`;
}
