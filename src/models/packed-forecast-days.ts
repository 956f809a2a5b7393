import { kindsOf, packedSize, readPacked, writePacked } from './packed-numbers';
import type { ForecastDay } from '../domain/forecast-days';

/** The amount fields of a forecast day, in the order they are packed. */
const FIELDS = ['won', 'commit', 'bestCase', 'pipeline'] as const;

/**
 * A facts document's forecast days as stored, packed the way packed-day-buckets.ts packs the day
 * buckets: per day its number (int32: days since 1970, any year), one byte saying how each of the
 * four amounts is packed (two bits each), then the amounts that are not zero, little-endian. Every
 * value reads back exactly.
 */
export function packForecastDays(days: readonly ForecastDay[]): Buffer {
  let bytes = 0;
  for (const day of days) {
    bytes += 5;
    for (const field of FIELDS) bytes += packedSize(day[field]);
  }
  const out = Buffer.alloc(bytes);
  let at = 0;
  for (const day of days) {
    const kinds = kindsOf(FIELDS.map((field) => day[field]));
    at = out.writeInt32LE(day.day, at);
    at = out.writeUInt8(kinds, at);
    for (const field of FIELDS) at = writePacked(out, day[field], at);
  }
  return out;
}

/** The days `packForecastDays` packed, in the same order. Throws on bytes it did not write. */
export function unpackForecastDays(bytes: Uint8Array): ForecastDay[] {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const days: ForecastDay[] = [];
  let at = 0;
  while (at < buf.length) {
    if (at + 5 > buf.length)
      throw new RangeError(`packed forecast days end inside a day header at byte ${at}`);
    const day: ForecastDay = {
      day: buf.readInt32LE(at),
      won: 0,
      commit: 0,
      bestCase: 0,
      pipeline: 0,
    };
    const kinds = buf.readUInt8(at + 4);
    at += 5;
    FIELDS.forEach((field, i) => {
      [day[field], at] = readPacked(
        buf,
        kinds,
        i,
        at,
        () => `packed forecast days end inside day ${day.day}`,
      );
    });
    days.push(day);
  }
  return days;
}
