import type { Document } from 'bson';
import { deserializeStored } from '../storage/stored-values';
import {
  HEADER_SIZE,
  MSG_CHECKSUM_PRESENT,
  MSG_KNOWN_REQUIRED_BITS,
  OP_MSG,
  OP_QUERY,
} from './op-codes';
import type { WireRequest } from './request';
import { WireError } from './wire-error';

/** Decodes one whole frame (as cut by FrameReader). Throws WireError on any rule broken. */
export function decodeRequest(frame: Buffer): WireRequest {
  const length = frame.readInt32LE(0);
  if (length !== frame.length) {
    throw new WireError(`frame length ${frame.length} differs from header length ${length}`);
  }
  const requestId = frame.readInt32LE(4);
  const opCode = frame.readInt32LE(12);
  switch (opCode) {
    case OP_MSG:
      return { kind: 'msg', requestId, ...decodeMsg(frame) };
    case OP_QUERY:
      return { kind: 'query', requestId, ...decodeQuery(frame) };
    default:
      throw new WireError(
        `unsupported opCode ${opCode}: expected OP_MSG (2013) or OP_QUERY (2004)`,
      );
  }
}

function decodeMsg(frame: Buffer): { flags: number; body: Document } {
  if (frame.length < HEADER_SIZE + 4 + 1) throw new WireError('OP_MSG too short');
  const flags = frame.readUInt32LE(HEADER_SIZE);
  // The low 16 bits are "required": a bit we do not understand must fail the message.
  if ((flags & 0xffff & ~MSG_KNOWN_REQUIRED_BITS) !== 0) {
    throw new WireError(`OP_MSG has unknown required flag bits 0x${flags.toString(16)}`);
  }
  let end = frame.length;
  // The CRC-32C is not verified (TCP already checksums); it is only skipped.
  if (flags & MSG_CHECKSUM_PRESENT) end -= 4;
  let offset = HEADER_SIZE + 4;
  let body: Document | undefined;
  const sequences: Array<[string, Document[]]> = [];
  while (offset < end) {
    const kind = frame[offset];
    offset += 1;
    if (kind === 0) {
      if (body) throw new WireError('OP_MSG has more than one body section');
      const [doc, next] = readDocument(frame, offset, end);
      body = doc;
      offset = next;
    } else if (kind === 1) {
      if (offset + 4 > end) throw new WireError('truncated document sequence');
      const size = frame.readInt32LE(offset);
      const seqEnd = offset + size;
      if (size < 5 || seqEnd > end) throw new WireError(`invalid document sequence size ${size}`);
      const nul = frame.indexOf(0, offset + 4);
      if (nul < 0 || nul >= seqEnd)
        throw new WireError('unterminated document sequence identifier');
      const identifier = frame.toString('utf8', offset + 4, nul);
      let pos = nul + 1;
      const docs: Document[] = [];
      while (pos < seqEnd) {
        const [doc, next] = readDocument(frame, pos, seqEnd);
        docs.push(doc);
        pos = next;
      }
      sequences.push([identifier, docs]);
      offset = seqEnd;
    } else {
      throw new WireError(`unknown OP_MSG section kind ${kind}`);
    }
  }
  if (!body) throw new WireError('OP_MSG has no body section');
  for (const [identifier, docs] of sequences) {
    if (identifier in body)
      throw new WireError(`duplicate field '${identifier}' in body and sequence`);
    body[identifier] = docs;
  }
  return { flags, body };
}

function decodeQuery(frame: Buffer): { fullCollectionName: string; query: Document } {
  let offset = HEADER_SIZE + 4; // flags
  const nul = frame.indexOf(0, offset);
  if (nul < 0) throw new WireError('unterminated OP_QUERY collection name');
  const fullCollectionName = frame.toString('utf8', offset, nul);
  offset = nul + 1 + 8; // numberToSkip, numberToReturn
  const [query, next] = readDocument(frame, offset, frame.length);
  if (next < frame.length) readDocument(frame, next, frame.length); // validate the selector, unused
  return { fullCollectionName, query };
}

function readDocument(buf: Buffer, offset: number, end: number): [Document, number] {
  if (offset + 5 > end) throw new WireError('truncated BSON document');
  const size = buf.readInt32LE(offset);
  if (size < 5 || offset + size > end) throw new WireError(`invalid BSON document size ${size}`);
  try {
    // Decoded straight into the store's in-memory form (storage/stored-values.ts).
    return [deserializeStored(buf.subarray(offset, offset + size)), offset + size];
  } catch (err) {
    throw new WireError(`invalid BSON: ${(err as Error).message}`);
  }
}
