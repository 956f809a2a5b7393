import type { Query } from './mingo';
import { StoreError } from '../errors';
import { isPlainObject } from '../storage/document-paths';
import { bsonTypeName } from './bson-types';
import { collatedFilter, collatedMingoOptions } from './collated-filter';
import type { Collation } from './collation';
import { storedQuery } from './stored-query';

/**
 * Validates a filter's shape and compiles it, its string comparisons under `collation` (null:
 * binary); operator errors surface as BadValue. The query tests stored documents (stored-query.ts).
 */
export function compileFilter(
  filter: unknown,
  what = 'filter',
  collation: Collation | null = null,
): Query {
  const criteria = filter ?? {};
  if (!isPlainObject(criteria)) {
    throw new StoreError(
      'TypeMismatch',
      `"${what}" had the wrong type. Expected object, found ${describeType(criteria)}`,
    );
  }
  return storedQuery(collatedFilter(criteria, collation), collatedMingoOptions(collation));
}

/** The BSON type name of a value, as mongod's messages give it. */
export function describeType(v: unknown): string {
  return bsonTypeName(v);
}
