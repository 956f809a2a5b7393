import { deserialize, serialize, type DeserializeOptions, type Document } from 'bson';
import { isPlainObject } from './document-paths';
import type { EncodedDocuments, LoadedMutation, Mutation } from './mutation';

/**
 * How the store holds BSON values in memory. Every numeric type keeps its BSON type, in the
 * cheapest form that serialises back to it:
 * - int32: a JS number (the serializer writes an integral number in int32 range as int32);
 * - double: a JS number when that already serialises as a double (not integral, or beyond int32),
 *   else a bson `Double` (1.0);
 * - int64: a bson `Long`, whatever its value;
 * - decimal128: a bson `Decimal128`.
 * A DBRef is a plain document `{$ref, $id, $db?, ...}`, as mongod stores it, so queries reach its
 * fields. Symbols are strings. Everything else is the bson class the decoder gives.
 *
 * Old data files decode the same way: they hold BSON, whatever the store held in memory then.
 */
const TYPED_OPTIONS: DeserializeOptions = {
  promoteLongs: false,
  promoteValues: false,
  promoteBuffers: false,
};
/** Int32 and Double as numbers, Long kept: right for every document without an integral double. */
const FAST_OPTIONS: DeserializeOptions = {
  promoteLongs: false,
  promoteValues: true,
  promoteBuffers: false,
};

const EXACT = { checkKeys: false, ignoreUndefined: false, serializeFunctions: false } as const;

/**
 * Whether two stored values are the same BSON, types included: mongod's test of a write that
 * changes nothing (`1` and `1.0` are equal values but not the same BSON).
 */
export function sameBson(a: unknown, b: unknown): boolean {
  return Buffer.from(serialize({ v: a }, EXACT)).equals(serialize({ v: b }, EXACT));
}

/** True for the numbers the serializer writes as int32 (-0 it writes as a double). */
export const isInt32 = (n: number): boolean =>
  Number.isInteger(n) && n >= -2147483648 && n <= 2147483647 && !Object.is(n, -0);

/**
 * Decodes one BSON document into the store's in-memory form. Most documents hold no double with
 * an int32 value and no DBRef: the decoder's own promotion gives their form directly, without a
 * second pass over the values (decoding every number as a class instance costs twice as much).
 */
export function deserializeStored(bytes: Uint8Array): Document {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (holdsInt32Double(buf)) return storedValue(deserialize(buf, TYPED_OPTIONS)) as Document;
  const doc = deserialize(buf, FAST_OPTIONS);
  return buf.includes(DBREF_FIELD) ? (storedValue(doc) as Document) : doc;
}

/** Decodes BSON documents written one after another (a journal record's list) as deserializeStored does. */
export function decodeDocuments(encoded: EncodedDocuments): Document[] {
  const { bytes } = encoded;
  const docs: Document[] = [];
  for (let offset = 0; offset < bytes.length;) {
    const size = bytes.readInt32LE(offset);
    docs.push(deserializeStored(bytes.subarray(offset, offset + size)));
    offset += size;
  }
  return docs;
}

/** The mutation with its documents decoded. */
export function decodedMutation(mutation: LoadedMutation): Mutation {
  if (!('encoded' in mutation)) return mutation;
  return { op: mutation.op, ns: mutation.ns, docs: decodeDocuments(mutation.encoded) };
}

const DBREF_FIELD = Buffer.from('$ref\0', 'latin1');

/**
 * Whether a BSON document holds a double whose value a JS number would send back as an int32,
 * found by walking its elements without decoding them. Anything it cannot read counts as yes:
 * the full decoder then reports what is wrong.
 */
function holdsInt32Double(buf: Buffer): boolean {
  try {
    let pos = 4;
    while (pos < buf.length) {
      const type = buf[pos++];
      if (type === 0) continue; // the end of a document: the elements of its parent go on
      pos = buf.indexOf(0, pos) + 1;
      if (pos === 0) return true;
      switch (type) {
        case 0x01:
          if (isInt32(buf.readDoubleLE(pos))) return true;
          pos += 8;
          break;
        case 0x02: // string
        case 0x0d: // code
        case 0x0e: // symbol
          pos += 4 + buf.readInt32LE(pos);
          break;
        case 0x03: // document
        case 0x04: // array: its elements follow its length
          pos += 4;
          break;
        case 0x05:
          pos += 5 + buf.readInt32LE(pos);
          break;
        case 0x06: // undefined
        case 0x0a: // null
        case 0x7f: // maxKey
        case 0xff: // minKey
          break;
        case 0x07:
          pos += 12;
          break;
        case 0x08:
          pos += 1;
          break;
        case 0x09: // date
        case 0x11: // timestamp
        case 0x12: // int64
          pos += 8;
          break;
        case 0x0b: // regex: pattern and options, two C strings
          pos = buf.indexOf(0, buf.indexOf(0, pos) + 1) + 1;
          if (pos === 0) return true;
          break;
        case 0x0c: // dbPointer
          pos += 4 + buf.readInt32LE(pos) + 12;
          break;
        case 0x0f: // code with scope: skipped whole
          pos += buf.readInt32LE(pos);
          break;
        case 0x10:
          pos += 4;
          break;
        case 0x13:
          pos += 16;
          break;
        default:
          return true;
      }
    }
    return false;
  } catch {
    return true;
  }
}

function storedValue(v: unknown): unknown {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const next = storedValue(v[i]);
      if (next !== v[i]) v[i] = next;
    }
    return v;
  }
  if (isPlainObject(v)) {
    for (const key of Object.keys(v)) {
      const next = storedValue(v[key]);
      // `__proto__` is an own field here (the decoder defines it so): keep it one.
      if (next !== v[key])
        Object.defineProperty(v, key, {
          value: next,
          writable: true,
          enumerable: true,
          configurable: true,
        });
    }
    return v;
  }
  const bson = v as { _bsontype?: string; value?: unknown };
  switch (bson._bsontype) {
    case 'Int32':
    case 'BSONSymbol':
      return bson.value;
    case 'Double': {
      const n = bson.value as number;
      return isInt32(n) ? v : n;
    }
    case 'DBRef':
      return dbRefDocument(v as DBRefLike);
    default:
      return v;
  }
}

interface DBRefLike {
  collection: string;
  oid: unknown;
  db?: string;
  fields: Document;
}

function dbRefDocument(ref: DBRefLike): Document {
  const doc: Document = { $ref: ref.collection, $id: storedValue(ref.oid) };
  if (ref.db !== undefined && ref.db !== '') doc.$db = ref.db;
  for (const key of Object.keys(ref.fields ?? {})) {
    Object.defineProperty(doc, key, {
      value: storedValue(ref.fields[key]),
      writable: true,
      enumerable: true,
      configurable: true,
    });
  }
  return doc;
}
