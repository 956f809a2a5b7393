/**
 * Canonical string forms of BSON values, used as hash keys by indexes and the `_id` map.
 * Two values get the same key exactly when mongod's equality treats them as equal: numbers of
 * any BSON type by numeric value (1, 1.0, Long 1, Decimal128 "1"), ObjectIds by their bytes,
 * Dates by their instant, documents field by field in order, arrays element by element.
 * Strings are JSON-quoted, so composed keys cannot collide by accident.
 */
export function canonicalKey(value: unknown): string {
  switch (typeof value) {
    case 'undefined':
      return 'N';
    case 'number':
      return numberKey(value);
    case 'bigint':
      return integerKey(value);
    case 'string':
      return `s${JSON.stringify(value)}`;
    case 'boolean':
      return value ? 'T' : 'F';
    case 'object':
      break;
    default:
      return `?${String(value)}`;
  }
  if (value === null) return 'N';
  if (Array.isArray(value)) return `[${value.map(canonicalKey).join(',')}]`;
  if (value instanceof Date) return `d${value.getTime()}`;
  if (value instanceof RegExp) return `r${value.source}/${value.flags}`;
  const bsonType = (value as { _bsontype?: string })._bsontype;
  if (bsonType !== undefined) return bsonKey(bsonType, value);
  const doc = value as Record<string, unknown>;
  let key = '{';
  for (const field of Object.keys(doc)) {
    if (key.length > 1) key += ',';
    key += `${JSON.stringify(field)}:${canonicalKey(doc[field])}`;
  }
  return `${key}}`;
}

function numberKey(n: number): string {
  // -0 and 0 are equal in mongod; String(-0) is already "0".
  return `n${String(n)}`;
}

/**
 * A 64-bit integer equal to some double shares that double's key; one no double holds exactly
 * keeps its digits (distinct Longs beyond 2^53 must not share a key).
 */
function integerKey(exact: bigint): string {
  const n = Number(exact);
  return BigInt(n) === exact ? numberKey(n) : `n${exact}`;
}

function bsonKey(bsonType: string, value: object): string {
  const v = value as {
    toString(enc?: string): string;
    toHexString?(): string;
    valueOf?(): unknown;
  };
  switch (bsonType) {
    case 'ObjectId':
    case 'ObjectID':
      return `o${v.toHexString!()}`;
    case 'Int32':
    case 'Double':
      return numberKey(Number(v.valueOf!()));
    case 'Long':
      return integerKey((value as { toBigInt(): bigint }).toBigInt());
    case 'Decimal128': {
      const n = Number(v.toString());
      // Beyond double precision the decimal's own text is the only faithful key.
      return Number.isFinite(n) && String(n) === v.toString() ? numberKey(n) : `n${v.toString()}`;
    }
    case 'Binary':
      return `x${(value as { sub_type: number }).sub_type}:${v.toString('base64')}`;
    case 'MinKey':
      return 'm';
    case 'MaxKey':
      return 'M';
    default:
      return `${bsonType}:${v.toString()}`;
  }
}
