import { kindsOf, packedSize, readPacked, writePacked } from './packed-numbers';
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
    for (const field of FIELDS) bytes += packedSize(bucket[field]);
  }
  const out = Buffer.alloc(bytes);
  let at = 0;
  for (const bucket of days) {
    const kinds = kindsOf(FIELDS.map((field) => bucket[field]));
    out.writeUInt16LE(bucket.d, at);
    out.writeUInt16LE(kinds, at + 2);
    at += 4;
    for (const field of FIELDS) at = writePacked(out, bucket[field], at);
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
      [bucket[field], at] = readPacked(
        buf,
        kinds,
        i,
        at,
        () => `packed day buckets end inside day ${bucket.d}`,
      );
    });
    days.push(bucket);
  }
  return days;
}
