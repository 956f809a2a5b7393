import type { Document } from 'bson';
import type { Query } from 'mingo';
import { StoreError } from '../errors';
import { isPlainObject } from '../storage/document-paths';
import { collatedFilter, collatedMingoOptions } from './collated-filter';
import type { Collation } from './collation';
import { fieldSafeQuery } from './proto-fields';

/**
 * Validates a filter's shape and compiles it, its string comparisons under `collation` (null:
 * binary); operator errors surface as BadValue.
 */
export function compileFilter(filter: unknown, what = 'filter', collation: Collation | null = null): Query {
  const criteria = filter ?? {};
  if (!isPlainObject(criteria)) {
    throw new StoreError('TypeMismatch', `"${what}" had the wrong type. Expected object, found ${describeType(criteria)}`);
  }
  return fieldSafeQuery(collatedFilter(criteria, collation), collatedMingoOptions(collation));
}

export function describeType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'double';
  if (typeof v === 'boolean') return 'bool';
  const bsonType = (v as { _bsontype?: string })?._bsontype;
  if (bsonType) return bsonType.toLowerCase();
  return typeof v === 'object' ? 'object' : typeof v;
}
