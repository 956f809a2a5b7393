import { serialize, type Document } from 'bson';
import { HEADER_SIZE, OP_MSG, OP_REPLY } from './op-codes';

function header(length: number, requestId: number, responseTo: number, opCode: number): Buffer {
  const h = Buffer.allocUnsafe(HEADER_SIZE);
  h.writeInt32LE(length, 0);
  h.writeInt32LE(requestId & 0x7fffffff, 4);
  h.writeInt32LE(responseTo, 8);
  h.writeInt32LE(opCode, 12);
  return h;
}

/** An OP_MSG reply with a single body section; the reply document is serialised exactly once. */
export function encodeMsgReply(requestId: number, responseTo: number, reply: Document): Buffer {
  const body = serialize(reply);
  const prefix = Buffer.allocUnsafe(5);
  prefix.writeUInt32LE(0, 0); // flags
  prefix[4] = 0; // section kind 0
  const length = HEADER_SIZE + 5 + body.length;
  return Buffer.concat([header(length, requestId, responseTo, OP_MSG), prefix, body], length);
}

/** An OP_REPLY carrying one document: the answer to a legacy OP_QUERY command. */
export function encodeOpReply(requestId: number, responseTo: number, reply: Document): Buffer {
  const body = serialize(reply);
  const fields = Buffer.allocUnsafe(20);
  fields.writeInt32LE(0, 0); // responseFlags
  fields.writeBigInt64LE(0n, 4); // cursorID
  fields.writeInt32LE(0, 12); // startingFrom
  fields.writeInt32LE(1, 16); // numberReturned
  const length = HEADER_SIZE + 20 + body.length;
  return Buffer.concat([header(length, requestId, responseTo, OP_REPLY), fields, body], length);
}
