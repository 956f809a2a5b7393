import type { Binary } from 'bson';

export const isBinary = (v: unknown): v is Binary =>
  (v as { _bsontype?: string } | null)?._bsontype === 'Binary';

/** The bytes a Binary holds (its buffer may be longer than its content). */
export const binaryBytes = (b: Binary): Uint8Array => b.buffer.subarray(0, b.position);

/** mongod's order of BinData values: by length, then subtype, then the bytes. */
export function compareBinary(a: Binary, b: Binary): number {
  const [x, y] = [binaryBytes(a), binaryBytes(b)];
  if (x.length !== y.length) return x.length < y.length ? -1 : 1;
  if (a.sub_type !== b.sub_type) return a.sub_type < b.sub_type ? -1 : 1;
  return Buffer.compare(x, y);
}
