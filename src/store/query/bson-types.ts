import { isPlainObject } from '../storage/document-paths';
import { isInt32 } from '../storage/stored-values';

/** mongod's BSON type aliases with their codes: `$type` accepts either. */
export const BSON_TYPE_CODES: Readonly<Record<string, number>> = {
  double: 1,
  string: 2,
  object: 3,
  array: 4,
  binData: 5,
  undefined: 6,
  objectId: 7,
  bool: 8,
  date: 9,
  null: 10,
  regex: 11,
  dbPointer: 12,
  javascript: 13,
  symbol: 14,
  javascriptWithScope: 15,
  int: 16,
  timestamp: 17,
  long: 18,
  decimal: 19,
  minKey: -1,
  maxKey: 127,
};

/** The codes of the numeric types, which the alias `number` stands for. */
export const NUMERIC_TYPE_CODES: ReadonlySet<number> = new Set([1, 16, 18, 19]);

const CODE_BY_CLASS: Readonly<Record<string, number>> = {
  Binary: 5,
  ObjectId: 7,
  ObjectID: 7,
  BSONRegExp: 11,
  BSONSymbol: 14,
  Int32: 16,
  Double: 1,
  Timestamp: 17,
  Long: 18,
  Decimal128: 19,
  MinKey: -1,
  MaxKey: 127,
  DBRef: 3,
};

/**
 * The BSON type a stored value is sent as. A JS number is what the serializer makes of it: an
 * int32 when integral and in range, a double otherwise (-0 included);
 * the other numeric types are kept as their BSON classes (see storage/stored-values.ts).
 */
export function bsonTypeCode(v: unknown): number {
  switch (typeof v) {
    case 'number':
      return isInt32(v) ? 16 : 1;
    case 'string':
      return 2;
    case 'boolean':
      return 8;
    case 'bigint':
      return 18;
    case 'undefined':
      return 6;
    default:
      break;
  }
  if (v === null) return 10;
  if (Array.isArray(v)) return 4;
  if (v instanceof Date) return 9;
  if (v instanceof RegExp) return 11;
  if (isPlainObject(v)) return 3;
  const bsonType = (v as { _bsontype?: string })._bsontype;
  if (bsonType === 'Code') return (v as { scope?: unknown }).scope ? 15 : 13;
  return bsonType !== undefined && Object.hasOwn(CODE_BY_CLASS, bsonType)
    ? CODE_BY_CLASS[bsonType]
    : 3;
}

const TYPE_NAMES = new Map(Object.entries(BSON_TYPE_CODES).map(([name, code]) => [code, name]));

/** The name mongod's messages give the BSON type of a stored value (`int`, `long`, `objectId`...). */
export function bsonTypeName(v: unknown): string {
  return TYPE_NAMES.get(bsonTypeCode(v)) ?? 'object';
}
