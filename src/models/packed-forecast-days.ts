import type { ForecastDay } from '../domain/forecast-days';

/** The amount fields of a forecast day, in the order they are packed. */
const FIELDS = ['won', 'commit', 'bestCase', 'pipeline'] as const;

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
 * A facts document's forecast days as stored, packed the way packed-day-buckets.ts packs the day
 * buckets: per day its number (int32: days since 1970, any year), one byte saying how each of the
 * four amounts is packed (two bits each), then the amounts that are not zero, little-endian. Every
 * value reads back exactly.
 */
export function packForecastDays(days: readonly ForecastDay[]): Buffer {
  let bytes = 0;
  for (const day of days) {
    bytes += 5;
    for (const field of FIELDS) bytes += SIZE[kindOf(day[field])];
  }
  const out = Buffer.alloc(bytes);
  let at = 0;
  for (const day of days) {
    let kinds = 0;
    FIELDS.forEach((field, i) => (kinds |= kindOf(day[field]) << (2 * i)));
    at = out.writeInt32LE(day.day, at);
    at = out.writeUInt8(kinds, at);
    for (const field of FIELDS) {
      const value = day[field];
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
      const kind = (kinds >> (2 * i)) & 3;
      if (at + SIZE[kind] > buf.length)
        throw new RangeError(`packed forecast days end inside day ${day.day}`);
      if (kind === U16) day[field] = buf.readUInt16LE(at);
      else if (kind === U32) day[field] = buf.readUInt32LE(at);
      else if (kind === F64) day[field] = buf.readDoubleLE(at);
      at += SIZE[kind];
    });
    days.push(day);
  }
  return days;
}
