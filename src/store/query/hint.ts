import type { Document } from 'bson';
import { StoreError } from '../errors';
import type { Collection } from '../storage/collection';
import { isPlainObject } from '../storage/document-paths';
import type { Index } from '../storage/index';
import { describeType } from './filter';

/** What a query's `hint` asks for: one index, or a collection scan in natural order (`{$natural: ±1}`). */
export type Hint = { kind: 'index'; index: Index } | { kind: 'natural'; direction: 1 | -1 };

/**
 * Resolves a `hint` (an index name or key pattern) against the collection, as mongod's planner
 * does: a hint that names no index of the collection, or a hidden one, is refused. An empty hint
 * is no hint; on a missing collection there is nothing to plan and nothing is refused.
 */
export function resolveHint(coll: Collection | undefined, hint: unknown): Hint | undefined {
  if (hint === undefined || hint === null) return undefined;
  if (typeof hint !== 'string' && !isPlainObject(hint)) {
    throw new StoreError(
      'TypeMismatch',
      `BSON field 'hint' is the wrong type '${describeType(hint)}', expected types '[string, object]'`,
    );
  }
  if (isPlainObject(hint) && Object.keys(hint).length === 0) return undefined;
  if (isPlainObject(hint) && '$natural' in hint)
    return { kind: 'natural', direction: Number(hint.$natural) < 0 ? -1 : 1 };
  if (!coll) return undefined;
  const index =
    typeof hint === 'string'
      ? coll.indexes.get(hint)
      : [...coll.indexes.values()].find((i) => sameKeyPattern(i.spec.key, hint as Document));
  if (!index || index.hidden) {
    throw new StoreError(
      'BadValue',
      'error processing query: planner returned error :: caused by :: hint provided does not correspond to an existing index',
    );
  }
  return { kind: 'index', index };
}

function sameKeyPattern(a: Document, b: Document): boolean {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return (
    ka.length === kb.length && ka.every((k, i) => k === kb[i] && String(a[k]) === String(b[k]))
  );
}
