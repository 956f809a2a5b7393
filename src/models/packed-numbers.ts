/**
 * The number codec of the packed columns (packed-day-buckets.ts, packed-forecast-days.ts): each
 * value is stored in the fewest bytes that give it back exactly: nothing for a zero, a 16- or
 * 32-bit unsigned integer for a small whole number, else a 64-bit float, little-endian. A record's
 * header says in two bits per field which of the four each field took.
 */

/** How a field is packed: absent (0), a 16- or 32-bit unsigned integer, or a 64-bit float. */
export type NumberKind = 0 | 1 | 2 | 3;

const U16 = 1;
const U32 = 2;
const F64 = 3;

/** The bytes each kind takes. */
const SIZE = [0, 2, 4, 8] as const;

/** The kind `value` is packed as. */
export function kindOf(value: number): NumberKind {
  if (value === 0) return 0;
  if (Number.isInteger(value) && value > 0)
    return value <= 0xffff ? U16 : value <= 0xffffffff ? U32 : F64;
  return F64;
}

/** The bytes `value` takes. */
export function packedSize(value: number): number {
  return SIZE[kindOf(value)];
}

/** The header bits of `values`, two per field in order. */
export function kindsOf(values: readonly number[]): number {
  let kinds = 0;
  values.forEach((value, i) => (kinds |= kindOf(value) << (2 * i)));
  return kinds;
}

/** Writes `value` at `at` as its kind says; answers the offset after it. */
export function writePacked(out: Buffer, value: number, at: number): number {
  switch (kindOf(value)) {
    case U16:
      return out.writeUInt16LE(value, at);
    case U32:
      return out.writeUInt32LE(value, at);
    case F64:
      return out.writeDoubleLE(value, at);
    default:
      return at;
  }
}

/**
 * Reads field `index`'s value at `at` as the header bits `kinds` say; answers it and the offset
 * after it. Throws `RangeError(ended())` when the value would run past the end of `buf`.
 */
export function readPacked(
  buf: Buffer,
  kinds: number,
  index: number,
  at: number,
  ended: () => string,
): [value: number, next: number] {
  const kind = (kinds >> (2 * index)) & 3;
  if (at + SIZE[kind] > buf.length) throw new RangeError(ended());
  const value =
    kind === U16
      ? buf.readUInt16LE(at)
      : kind === U32
        ? buf.readUInt32LE(at)
        : kind === F64
          ? buf.readDoubleLE(at)
          : 0;
  return [value, at + SIZE[kind]];
}
