import { StoreError } from '../errors';

/** Splits "<db>.<collection>" at the first dot (collection names may contain dots). */
export function splitNamespace(ns: string): [string, string] {
  const dot = ns.indexOf('.');
  if (dot <= 0) throw new StoreError('InvalidNamespace', `Invalid namespace specified '${ns}'`);
  return [ns.slice(0, dot), ns.slice(dot + 1)];
}

const DB_FORBIDDEN = /[/\\. "$\0]/;

/** mongod's database name rules. */
export function validateDbName(db: unknown): string {
  if (typeof db !== 'string' || db.length === 0 || db.length >= 64 || DB_FORBIDDEN.test(db)) {
    throw new StoreError('InvalidNamespace', `Invalid database name: '${String(db)}'`);
  }
  return db;
}

/** mongod's collection name rules (no "$", no NUL, not empty, not starting with a dot). */
export function validateCollectionName(db: string, name: unknown): string {
  if (typeof name !== 'string') {
    throw new StoreError('InvalidNamespace', `collection name has invalid type ${typeof name}`);
  }
  if (name.length === 0 || name.includes('$') || name.includes('\0') || name.startsWith('.')) {
    throw new StoreError('InvalidNamespace', `Invalid collection name: ${db}.${name}`);
  }
  return name;
}
