import { calculateObjectSize, serialize, serializeWithBufferAndIndex, type Document } from 'bson';
import { deserializeStored } from '../stored-values';
import { UnreachableCaseError, type EncodedDocuments, type LoadedMutation } from '../mutation';

/**
 * Encodes a batch of mutations as one record payload: a plain concatenation of BSON documents.
 * Each mutation is a header document (the mutation minus its list, plus `n`, the list length)
 * followed by its `n` list items as separate documents. Items are serialised one by one so a batch
 * of many documents never meets BSON's 16 MB per-document limit.
 */

const SERIALIZE_OPTIONS = {
  checkKeys: false,
  ignoreUndefined: false,
  serializeFunctions: false,
} as const;

/** End marker of a snapshot file: proves the snapshot was written to the end. */
export const SNAPSHOT_END_OP = 'snapshotEnd';

export function encodeBatch(batch: readonly LoadedMutation[]): Buffer {
  const writer = new PayloadWriter();
  for (const mutation of batch) encodeMutation(mutation, writer);
  return writer.payload();
}

/** First size of a payload's buffer; it doubles as documents need. */
const INITIAL_PAYLOAD_BYTES = 64 * 1024;

/**
 * BSON documents written one after another into one growing buffer. A Buffer per document would
 * cost a small allocation each (Node's pooled Buffers: a new 8 KB ArrayBuffer every few
 * documents), which at millions of documents is a large share of the garbage collector's work.
 */
class PayloadWriter {
  private buf = Buffer.allocUnsafe(INITIAL_PAYLOAD_BYTES);
  private length = 0;

  put(doc: Document): void {
    try {
      this.length =
        serializeWithBufferAndIndex(doc, this.buf, { ...SERIALIZE_OPTIONS, index: this.length }) +
        1;
    } catch (err) {
      // The serializer writes into its own buffer, then copies into ours: when the document does
      // not fit in what is left of ours, the copy fails. Any other failure is the document's.
      const needed = calculateObjectSize(doc, SERIALIZE_OPTIONS);
      if (needed <= this.buf.length - this.length) throw err;
      this.reserve(needed);
      this.length =
        serializeWithBufferAndIndex(doc, this.buf, { ...SERIALIZE_OPTIONS, index: this.length }) +
        1;
    }
  }

  /** Documents already in BSON, copied as they are. */
  putEncoded(bytes: Buffer): void {
    this.reserve(bytes.length);
    this.length += bytes.copy(this.buf, this.length);
  }

  /** Grows the buffer, if need be, so that `bytes` more fit. */
  private reserve(bytes: number): void {
    if (bytes <= this.buf.length - this.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.length + bytes));
    this.buf.copy(grown, 0, 0, this.length);
    this.buf = grown;
  }

  payload(): Buffer {
    return this.buf.subarray(0, this.length);
  }
}

export function encodeSnapshotEnd(records: number): Buffer {
  return toBuffer(serialize({ op: SNAPSHOT_END_OP, records }, SERIALIZE_OPTIONS));
}

function encodeMutation(mutation: LoadedMutation, writer: PayloadWriter): void {
  const put = (doc: Document): void => writer.put(doc);
  if ('encoded' in mutation) {
    put({ op: mutation.op, ns: mutation.ns, n: mutation.encoded.count });
    writer.putEncoded(mutation.encoded.bytes);
    return;
  }
  switch (mutation.op) {
    case 'insert':
    case 'replace':
      put({ op: mutation.op, ns: mutation.ns, n: mutation.docs.length });
      for (const doc of mutation.docs) put(doc);
      return;
    case 'delete':
      put({ op: mutation.op, ns: mutation.ns, n: mutation.ids.length });
      for (const id of mutation.ids) put({ v: id });
      return;
    case 'createIndexes':
      put({ op: mutation.op, ns: mutation.ns, n: mutation.specs.length });
      for (const spec of mutation.specs) put(spec);
      return;
    case 'createCollection':
    case 'setCollectionOptions':
    case 'dropCollection':
    case 'dropDatabase':
    case 'renameCollection':
    case 'dropIndexes':
    case 'updateIndexSpec':
      put({ ...mutation });
      return;
    default:
      throw new UnreachableCaseError(mutation);
  }
}

// bson returns Uint8Array typed values that are Node Buffers at run time; view them as such.
const toBuffer = (bytes: Uint8Array): Buffer =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** A decoded payload: mutations, or the snapshot end marker with its record count. */
export type DecodedPayload =
  { kind: 'batch'; batch: LoadedMutation[] } | { kind: 'end'; records: number };

/**
 * Decodes one payload; throws (with a plain message) if it is not a well-formed batch. An insert's
 * or a replace's documents come back as their BSON (EncodedWrite, each document's size checked),
 * for a collection to decode when it is first read; other documents in the store's in-memory form
 * (storage/stored-values.ts), which serialises again to the same BSON bytes.
 */
export function decodePayload(payload: Buffer): DecodedPayload {
  let offset = 0;
  /** Steps over the next document, returning where it starts. */
  const skip = (): number => {
    if (offset + 5 > payload.length)
      throw new Error(`truncated BSON document at payload byte ${offset}`);
    const size = payload.readInt32LE(offset);
    if (size < 5 || offset + size > payload.length) {
      throw new Error(`invalid BSON document size ${size} at payload byte ${offset}`);
    }
    const start = offset;
    offset += size;
    return start;
  };
  const next = (): Document => deserializeStored(payload.subarray(skip(), offset));
  const batch: LoadedMutation[] = [];
  while (offset < payload.length) {
    const head = next();
    const n = head.n;
    const count = (): number => {
      if (!Number.isInteger(n) || n < 0)
        throw new Error(`mutation '${head.op}' has item count ${String(n)}`);
      return n as number;
    };
    const items = (): Document[] => Array.from({ length: count() }, next);
    switch (head.op) {
      case SNAPSHOT_END_OP:
        if (batch.length > 0 || offset !== payload.length)
          throw new Error('snapshot end marker is not alone in its record');
        return { kind: 'end', records: head.records as number };
      case 'insert':
      case 'replace': {
        const start = offset;
        const documents = count();
        for (let i = 0; i < documents; i++) skip();
        const encoded: EncodedDocuments = {
          bytes: payload.subarray(start, offset),
          count: documents,
        };
        batch.push({ op: head.op, ns: head.ns, encoded });
        break;
      }
      case 'delete':
        batch.push({ op: 'delete', ns: head.ns, ids: items().map((item) => item.v) });
        break;
      case 'createIndexes':
        batch.push({ op: 'createIndexes', ns: head.ns, specs: items() });
        break;
      case 'createCollection':
      case 'setCollectionOptions':
      case 'dropCollection':
      case 'dropDatabase':
      case 'renameCollection':
      case 'dropIndexes':
      case 'updateIndexSpec':
        batch.push(head as LoadedMutation);
        break;
      default:
        throw new Error(`unknown mutation op ${JSON.stringify(head.op)}`);
    }
  }
  return { kind: 'batch', batch };
}
