import type { Document } from 'bson';
import { Double, Int32, Long } from 'bson';
import { StoreError } from '../errors';
import { describeType } from '../query/filter';
import { isPlainObject } from '../storage/document-paths';
import { validateCollectionName } from '../storage/namespace';
import type { CommandContext } from './command';

/** The collection named by the command's first field (`{find: "users"}` → "users"). */
export function collectionArg(ctx: CommandContext, command: string): string {
  const value = ctx.body[Object.keys(ctx.body)[0]];
  if (typeof value !== 'string') {
    throw new StoreError(
      'InvalidNamespace',
      `collection name has invalid type ${describeType(value)}`,
    );
  }
  if (value.length === 0) {
    throw new StoreError(
      'InvalidNamespace',
      `Invalid namespace specified '${ctx.db}.' for ${command}`,
    );
  }
  return validateCollectionName(ctx.db, value);
}

/** A number argument of any BSON numeric type (Decimal128 aside) as a JS number; else undefined. */
export function numberArgument(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (v instanceof Long) return v.toNumber();
  if (v instanceof Double || v instanceof Int32) return v.value;
  return undefined;
}

export function optionalNumber(body: Document, field: string): number | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  const n = numberArgument(v);
  if (n !== undefined) return n;
  throw new StoreError(
    'TypeMismatch',
    `BSON field '${field}' is the wrong type '${describeType(v)}', expected types '[long, int, decimal, double]'`,
  );
}

export function optionalNonNegative(
  body: Document,
  field: string,
  command: string,
): number | undefined {
  const v = optionalNumber(body, field);
  if (v !== undefined && v < 0) {
    throw new StoreError(
      'BadValue',
      `BSON field '${command}.${field}' value must be >= 0, actual value '${v}'`,
    );
  }
  return v;
}

export function optionalObject(body: Document, field: string): Document | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (!isPlainObject(v)) {
    throw new StoreError(
      'TypeMismatch',
      `BSON field '${field}' is the wrong type '${describeType(v)}', expected type 'object'`,
    );
  }
  return v;
}

export function requiredArray(body: Document, field: string, command: string): unknown[] {
  const v = body[field];
  if (!Array.isArray(v)) {
    if (v === undefined)
      throw new StoreError(
        'Location40414',
        `BSON field '${command}.${field}' is missing but a required field`,
      );
    throw new StoreError(
      'TypeMismatch',
      `BSON field '${command}.${field}' is the wrong type '${describeType(v)}', expected type 'array'`,
    );
  }
  return v;
}

export function optionalBoolean(body: Document, field: string): boolean | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'boolean') return v;
  const n = numberArgument(v);
  if (n !== undefined) return n !== 0;
  throw new StoreError(
    'TypeMismatch',
    `BSON field '${field}' is the wrong type '${describeType(v)}', expected type 'bool'`,
  );
}

/** A cursor id as sent by drivers (Long or number) → bigint. */
export function cursorId(v: unknown, field: string): bigint {
  if (v instanceof Long) return v.toBigInt();
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  if (typeof v === 'bigint') return v;
  throw new StoreError(
    'TypeMismatch',
    `BSON field '${field}' is the wrong type '${describeType(v)}', expected type 'long'`,
  );
}

/** The `{cursor: {batchSize}}` option of aggregate/listCollections/listIndexes. */
export function cursorBatchSize(body: Document): number | undefined {
  const cursor = optionalObject(body, 'cursor');
  return cursor ? optionalNonNegative(cursor, 'batchSize', 'cursor') : undefined;
}
