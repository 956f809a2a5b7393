import type { DayBucket } from '../domain/pipeline-facts';

/** The value fields of a day bucket, in the order they are packed. */
const FIELDS = [
  'wonCount',
  'wonAmount',
  'lostCount',
  'cycleCount',
  'cycleDays',
  'openAmount',
] as const;

/** How a field is packed: absent (0), a 16- or 32-bit unsigned integer, or a 64-bit float. */
const ZERO = 0;
const U16 = 1;
const U32 = 2;
const F64 = 3;

const SIZE = [0, 2, 4, 8];

function kindOf(value: number): number {
  if (value === 0) return ZERO;
  if (Number.isInteger(value) && value > 0)
    return value <= 0xffff ? U16 : value <= 0xffffffff ? U32 : F64;
  return F64;
}

/**
 * A facts document's day buckets as stored: per bucket its day (uint16), two bits per field saying
 * how it is packed (uint16), then the fields that are not zero, little-endian. Most buckets have
 * one to four fields that are not zero, and counts and whole amounts fit in 2 or 4 bytes: about a
 * fifth of the same buckets as BSON subdocuments, and one buffer in memory instead of an object
 * per day. Every value reads back exactly (64-bit floats where it is not a small whole number).
 */
export function packDayBuckets(days: readonly DayBucket[]): Buffer {
  let bytes = 0;
  for (const bucket of days) {
    bytes += 4;
    for (const field of FIELDS) bytes += SIZE[kindOf(bucket[field])];
  }
  const out = Buffer.alloc(bytes);
  let at = 0;
  for (const bucket of days) {
    let kinds = 0;
    FIELDS.forEach((field, i) => (kinds |= kindOf(bucket[field]) << (2 * i)));
    out.writeUInt16LE(bucket.d, at);
    out.writeUInt16LE(kinds, at + 2);
    at += 4;
    for (const field of FIELDS) {
      const value = bucket[field];
      switch (kindOf(value)) {
        case U16:
          at = out.writeUInt16LE(value, at);
          break;
        case U32:
          at = out.writeUInt32LE(value, at);
          break;
        case F64:
          at = out.writeDoubleLE(value, at);
          break;
      }
    }
  }
  return out;
}

/** The buckets `packDayBuckets` packed, in the same order. Throws on bytes it did not write. */
export function unpackDayBuckets(bytes: Uint8Array): DayBucket[] {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const days: DayBucket[] = [];
  let at = 0;
  while (at < buf.length) {
    if (at + 4 > buf.length)
      throw new RangeError(`packed day buckets end inside a bucket header at byte ${at}`);
    const bucket: DayBucket = {
      d: buf.readUInt16LE(at),
      wonCount: 0,
      wonAmount: 0,
      lostCount: 0,
      cycleCount: 0,
      cycleDays: 0,
      openAmount: 0,
    };
    const kinds = buf.readUInt16LE(at + 2);
    at += 4;
    FIELDS.forEach((field, i) => {
      const kind = (kinds >> (2 * i)) & 3;
      if (at + SIZE[kind] > buf.length)
        throw new RangeError(`packed day buckets end inside day ${bucket.d}`);
      if (kind === U16) bucket[field] = buf.readUInt16LE(at);
      else if (kind === U32) bucket[field] = buf.readUInt32LE(at);
      else if (kind === F64) bucket[field] = buf.readDoubleLE(at);
      at += SIZE[kind];
    });
    days.push(bucket);
  }
  return days;
}
