import { connect } from 'node:net';
import { deserialize, type Document } from 'bson';
import { bodySection, opMsg } from './wire-frames';

const MAX_MESSAGE_SIZE = 48_000_000;
const PROBE_REQUEST_ID = 0x7e57;

/**
 * Zero bytes to append so the server's framer ends exactly on a frame boundary (or on a length it
 * refuses): then a server that keeps the connection must answer a probe sent after them, and the
 * test never waits on a frame the server is still collecting.
 */
export function framingFiller(bytes: Buffer): Buffer {
  let data = bytes;
  let offset = 0;
  for (;;) {
    const left = data.length - offset;
    if (left === 0) return data.subarray(bytes.length);
    if (left < 4) {
      data = Buffer.concat([data, Buffer.alloc(4 - left)]);
      continue;
    }
    const length = data.readInt32LE(offset);
    if (length < 16 || length > MAX_MESSAGE_SIZE) return data.subarray(bytes.length);
    if (offset + length > data.length)
      data = Buffer.concat([data, Buffer.alloc(offset + length - data.length)]);
    offset += length;
  }
}

export interface RawReply {
  responseTo: number;
  opCode: number;
  doc: Document;
}

export interface RawOutcome {
  /** Replies before the probe's, parsed (a malformed reply frame throws). */
  replies: RawReply[];
  /** True if the server closed the connection instead of answering the probe. */
  closed: boolean;
}

/** Parses the reply stream; throws on anything that is not a well-formed reply frame. */
function parseReplies(stream: Buffer): { replies: RawReply[]; rest: Buffer } {
  const replies: RawReply[] = [];
  let offset = 0;
  while (stream.length - offset >= 16) {
    const length = stream.readInt32LE(offset);
    if (length < 21 || length > MAX_MESSAGE_SIZE)
      throw new Error(`reply declares length ${length}`);
    if (offset + length > stream.length) break;
    const frame = stream.subarray(offset, offset + length);
    const responseTo = frame.readInt32LE(8);
    const opCode = frame.readInt32LE(12);
    let docStart: number;
    if (opCode === 2013) {
      if (frame[20] !== 0) throw new Error(`reply section kind ${frame[20]}`);
      docStart = 21;
    } else if (opCode === 1) {
      docStart = 36;
    } else {
      throw new Error(`reply opCode ${opCode}`);
    }
    const docLength = frame.readInt32LE(docStart);
    if (docStart + docLength !== length)
      throw new Error(`reply document of ${docLength} bytes in a ${length}-byte frame`);
    replies.push({ responseTo, opCode, doc: deserialize(frame.subarray(docStart)) });
    offset += length;
  }
  return { replies, rest: stream.subarray(offset) };
}

/**
 * Sends `bytes` on a fresh connection, then (after framing filler) a ping probe, and resolves when
 * the probe is answered or the server closes the connection. Resolution is event-driven: no timers.
 */
export function sendRaw(port: number, bytes: Buffer): Promise<RawOutcome> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1' });
    const chunks: Buffer[] = [];
    let done = false;
    const finish = (closed: boolean): void => {
      if (done) return;
      done = true;
      try {
        const { replies, rest } = parseReplies(Buffer.concat(chunks));
        const probe = replies.findIndex((r) => r.responseTo === PROBE_REQUEST_ID);
        if (!closed && probe < 0) throw new Error('finished without the probe reply');
        if (closed && rest.length > 0)
          throw new Error(`connection closed inside a reply (${rest.length} stray bytes)`);
        resolve({ replies: probe >= 0 ? replies.slice(0, probe) : replies, closed: probe < 0 });
      } catch (err) {
        reject(err);
      } finally {
        socket.destroy();
      }
    };
    socket.on('connect', () => {
      const probe = opMsg(bodySection({ ping: 1, $db: 'fuzz' }), 0, PROBE_REQUEST_ID);
      socket.write(Buffer.concat([bytes, framingFiller(bytes), probe]));
    });
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      const { replies } = parseReplies(Buffer.concat(chunks));
      if (replies.some((r) => r.responseTo === PROBE_REQUEST_ID)) finish(false);
    });
    // A reset (the server destroying a socket with unread input) counts as a close.
    socket.on('error', (err: NodeJS.ErrnoException) =>
      err.code === 'ECONNRESET' || err.code === 'EPIPE' ? finish(true) : reject(err),
    );
    socket.on('close', () => finish(true));
  });
}
