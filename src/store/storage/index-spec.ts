import type { Document } from 'bson';
import { StoreError } from '../errors';
import { viewOf } from '../query/mingo-view';

/** The options of an index that matter to the store; the whole spec is kept for listIndexes. */
export interface IndexSpec {
  v: number;
  key: Document;
  name: string;
  unique?: boolean;
  sparse?: boolean;
  partialFilterExpression?: Document;
  [option: string]: unknown;
}

/** mongod's default name: fields and directions joined by "_" ({a: 1, b: -1} → "a_1_b_-1"). */
export function defaultIndexName(key: Document): string {
  return Object.entries(key)
    .map(([field, dir]) => `${field}_${String(dir)}`)
    .join('_');
}

const INDEX_TYPES = new Set(['text', '2d', '2dsphere', 'hashed', 'geoHaystack', 'columnstore']);

/** Validates one createIndexes spec and normalises it (v: 2, name defaulted). */
export function normaliseIndexSpec(raw: unknown): IndexSpec {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new StoreError(
      'TypeMismatch',
      `each index specification must be an object, got ${typeof raw}`,
    );
  }
  // Key directions and options are read as plain numbers whatever their BSON type (mongosh sends
  // `{a: 1}` as a double).
  const spec = viewOf(raw) as Document;
  const key = spec.key;
  if (
    typeof key !== 'object' ||
    key === null ||
    Array.isArray(key) ||
    Object.keys(key).length === 0
  ) {
    throw new StoreError('CannotCreateIndex', 'Index keys cannot be empty.');
  }
  for (const [field, dir] of Object.entries(key as Document)) {
    const ok =
      (typeof dir === 'number' && dir !== 0 && Number.isFinite(dir)) ||
      (typeof dir === 'string' && INDEX_TYPES.has(dir));
    if (!ok || field === '') {
      throw new StoreError(
        'BadValue',
        `Values in the index key pattern can only be numbers or strings, got ${field}: ${JSON.stringify(dir)}`,
      );
    }
  }
  if (spec.name !== undefined && (typeof spec.name !== 'string' || spec.name === '')) {
    throw new StoreError(
      'TypeMismatch',
      `index name must be a non-empty string, got ${JSON.stringify(spec.name)}`,
    );
  }
  if (
    spec.partialFilterExpression !== undefined &&
    (typeof spec.partialFilterExpression !== 'object' || spec.partialFilterExpression === null)
  ) {
    throw new StoreError('TypeMismatch', 'partialFilterExpression must be an object');
  }
  const normalised: IndexSpec = {
    ...spec,
    v: 2,
    key: key as Document,
    name: (spec.name as string) ?? defaultIndexName(key as Document),
  };
  if (normalised.unique === false) delete normalised.unique;
  if (normalised.sparse === false) delete normalised.sparse;
  delete normalised.background; // accepted and ignored by mongod 4.2+
  return normalised;
}

/** Two specs with the same name/key are "the same index" when the options that matter agree. */
export function sameIndexOptions(a: IndexSpec, b: IndexSpec): boolean {
  return (
    !!a.unique === !!b.unique &&
    !!a.sparse === !!b.sparse &&
    JSON.stringify(a.partialFilterExpression ?? null) ===
      JSON.stringify(b.partialFilterExpression ?? null) &&
    JSON.stringify(a.collation ?? null) === JSON.stringify(b.collation ?? null) &&
    JSON.stringify(a.key) === JSON.stringify(b.key)
  );
}
