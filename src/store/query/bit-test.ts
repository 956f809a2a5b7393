import { StoreError } from '../errors';
import { binaryBytes, isBinary } from './binary-values';

export type BitTestMode = 'allSet' | 'allClear' | 'anySet' | 'anyClear';

const TWO_63 = 2 ** 63;

/**
 * The bit positions a `$bits*` mask names: an array of positions, a non-negative integer bitmask,
 * or a BinData whose set bits (byte 0 bit 0 first) are the positions.
 */
export function maskPositions(operator: string, mask: unknown): number[] {
  if (Array.isArray(mask)) {
    return mask.map((p) => {
      const n = integralNumber(p);
      if (n === undefined)
        throw new StoreError('BadValue', `bit positions must be an integer but got: ${String(p)}`);
      if (n < 0) throw new StoreError('BadValue', `bit positions cannot be negative but got: ${n}`);
      return n;
    });
  }
  if (isBinary(mask)) return setBits(binaryBytes(mask));
  const n = integralNumber(mask);
  if (n !== undefined) {
    if (n < 0)
      throw new StoreError(
        'BadValue',
        `${operator} bitmask must be a non-negative integer, got: ${n}`,
      );
    const positions: number[] = [];
    for (let bit = 0, rest = BigInt(n); rest > 0n; bit++, rest >>= 1n)
      if (rest & 1n) positions.push(bit);
    return positions;
  }
  throw new StoreError(
    'BadValue',
    `${operator} takes an Array, a number, or a BinData but received: ${JSON.stringify(mask)}`,
  );
}

/**
 * Whether a value passes a bit test, as mongod decides it: numbers as 64-bit two's complement
 * integers (positions past 63 repeat the sign bit; fractions and values beyond 64 bits never
 * match), BinData by its bytes (positions past its end are clear); every other type fails.
 */
export function bitTest(value: unknown, positions: number[], mode: BitTestMode): boolean {
  let isSet: (position: number) => boolean;
  if (isBinary(value)) {
    const bytes = binaryBytes(value);
    isSet = (p) => p >> 3 < bytes.length && ((bytes[p >> 3] >> (p & 7)) & 1) === 1;
  } else {
    const n = int64Value(value);
    if (n === undefined) return false;
    const bits = BigInt.asUintN(64, n);
    isSet = (p) => (p >= 64 ? n < 0n : ((bits >> BigInt(p)) & 1n) === 1n);
  }
  switch (mode) {
    case 'allSet':
      return positions.every(isSet);
    case 'allClear':
      return positions.every((p) => !isSet(p));
    case 'anySet':
      return positions.some(isSet);
    case 'anyClear':
      return positions.some((p) => !isSet(p));
  }
}

function setBits(bytes: Uint8Array): number[] {
  const positions: number[] = [];
  for (let i = 0; i < bytes.length * 8; i++) if ((bytes[i >> 3] >> (i & 7)) & 1) positions.push(i);
  return positions;
}

/** A numeric value (of any BSON numeric type) that is integral, as a number; else undefined. */
function integralNumber(v: unknown): number | undefined {
  const n = int64Value(v);
  return n === undefined ? undefined : Number(n);
}

function int64Value(v: unknown): bigint | undefined {
  const bsonType = (v as { _bsontype?: string } | null)?._bsontype;
  if (bsonType === 'Long') return BigInt((v as { toString(): string }).toString());
  if (typeof v === 'bigint') return BigInt.asIntN(64, v) === v ? v : undefined;
  const n =
    typeof v === 'number'
      ? v
      : bsonType === 'Int32' || bsonType === 'Double'
        ? Number((v as { valueOf(): number }).valueOf())
        : NaN;
  if (!Number.isInteger(n) || n >= TWO_63 || n < -TWO_63) return undefined;
  return BigInt(n);
}
