import type { Document } from 'bson';
import { Query } from './mingo';
import { StoreError } from '../errors';
import { isPlainObject } from '../storage/document-paths';
import { withDbRefFields } from './dbref-fields';
import { mingoOptions } from './mingo-options';
import { viewOf } from './mingo-view';

/**
 * Validates a filter's shape and compiles it; operator errors surface as BadValue. The query
 * tests views of documents (mingo-view.ts).
 */
export function compileFilter(filter: unknown, what = 'filter'): Query {
  const criteria = filter ?? {};
  if (!isPlainObject(criteria)) {
    throw new StoreError('TypeMismatch', `"${what}" had the wrong type. Expected object, found ${describeType(criteria)}`);
  }
  return new Query(withDbRefFields(viewOf(criteria)), mingoOptions());
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
