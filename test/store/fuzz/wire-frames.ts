import fc from 'fast-check';
import { deserialize, serialize, type Document } from 'bson';

/** Builders and fast-check generators of hostile wire-protocol input. */

export const OP_MSG = 2013;
export const OP_QUERY = 2004;

export function header(length: number, requestId: number, opCode: number): Buffer {
  const h = Buffer.alloc(16);
  h.writeInt32LE(length, 0);
  h.writeInt32LE(requestId, 4);
  h.writeInt32LE(0, 8);
  h.writeInt32LE(opCode, 12);
  return h;
}

/** A well-formed OP_MSG whose header length is right; the body can be anything. */
export function opMsg(sections: Buffer, flags = 0, requestId = 1): Buffer {
  const flagBytes = Buffer.alloc(4);
  flagBytes.writeUInt32LE(flags >>> 0, 0);
  const length = 16 + 4 + sections.length;
  return Buffer.concat([header(length, requestId, OP_MSG), flagBytes, sections]);
}

export const bodySection = (doc: Document | Buffer): Buffer =>
  Buffer.concat([Buffer.from([0]), Buffer.isBuffer(doc) ? doc : Buffer.from(serialize(doc))]);

export function sequenceSection(identifier: string, docs: Buffer[]): Buffer {
  const id = Buffer.from(`${identifier}\0`, 'utf8');
  const size = 4 + id.length + docs.reduce((sum, d) => sum + d.length, 0);
  const sizeBytes = Buffer.alloc(4);
  sizeBytes.writeInt32LE(size, 0);
  return Buffer.concat([Buffer.from([1]), sizeBytes, id, ...docs]);
}

function isValidBson(doc: Buffer): boolean {
  try {
    deserialize(doc);
    return true;
  } catch {
    return false;
  }
}

/** A valid read-only command frame: a template the mutations below break. */
export const pingFrame = (): Buffer => opMsg(bodySection({ ping: 1, $db: 'fuzz' }));
export const findFrame = (): Buffer =>
  opMsg(bodySection({ find: 'things', filter: {}, $db: 'fuzz' }));

/**
 * A case: the bytes, the rule they break, and whether they are certainly invalid (then every
 * reply to them must be an error). Random garbage may happen to be valid, so it claims nothing.
 */
export type HostileCase = { kind: string; bytes: Buffer; invalid: boolean };

const bytes = (min: number, max: number): fc.Arbitrary<Buffer> =>
  fc.uint8Array({ minLength: min, maxLength: max }).map((a) => Buffer.from(a));

/** Pure noise. */
const garbage = bytes(1, 600).map((b) => ({ kind: 'garbage bytes', bytes: b, invalid: false }));

/** A valid frame cut short (the peer then half-closes). */
const truncated = fc
  .tuple(fc.constantFrom(pingFrame(), findFrame()), fc.nat())
  .map(([frame, n]) => ({
    kind: 'truncated frame',
    bytes: frame.subarray(0, n % frame.length),
    invalid: false,
  }));

/** A header declaring a length outside 16..48 MB, or just wrong for what follows. */
const badLength = fc
  .tuple(
    fc.oneof(
      fc.integer({ min: -(2 ** 31), max: 15 }),
      fc.integer({ min: 48_000_001, max: 2 ** 31 - 1 }),
      fc.integer({ min: 16, max: 200 }),
    ),
    fc.constantFrom(pingFrame(), findFrame()),
  )
  .filter(([length, frame]) => length !== frame.length)
  .map(([length, frame]) => {
    const copy = Buffer.from(frame);
    copy.writeInt32LE(length, 0);
    return { kind: 'wrong message length', bytes: copy, invalid: true };
  });

/** A well-framed message with an opcode the server does not speak. */
const unknownOpcode = fc
  .tuple(
    fc
      .integer({ min: -(2 ** 31), max: 2 ** 31 - 1 })
      .filter((op) => op !== OP_MSG && op !== OP_QUERY),
    bytes(0, 64),
  )
  .map(([op, body]) => ({
    kind: 'unknown opcode',
    bytes: Buffer.concat([header(16 + body.length, 7, op), body]),
    invalid: true,
  }));

/** OP_MSG with a section kind other than 0 and 1. */
const wrongSectionKind = fc
  .tuple(fc.integer({ min: 2, max: 255 }), fc.boolean())
  .map(([kind, afterBody]) => {
    const body = bodySection({ ping: 1, $db: 'fuzz' });
    const bad = Buffer.concat([Buffer.from([kind]), Buffer.from(serialize({ x: 1 }))]);
    return {
      kind: 'wrong section kind',
      bytes: opMsg(afterBody ? Buffer.concat([body, bad]) : bad),
      invalid: true,
    };
  });

/** OP_MSG whose body document is damaged: random bytes flipped, sizes lied about, cut short. */
const invalidBson = fc
  .tuple(
    fc.nat(),
    fc.integer({ min: 1, max: 255 }),
    fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
    fc.nat(3),
  )
  .map(([position, xor, size, how]) => {
    const doc = Buffer.from(serialize({ find: 'things', filter: { a: { $gt: 1 } }, $db: 'fuzz' }));
    const broken = Buffer.from(doc);
    switch (how) {
      case 0: // flip bits somewhere after the size field
        broken[4 + (position % (doc.length - 4))] ^= xor;
        break;
      case 1: // lie about the document size
        broken.writeInt32LE(size, 0);
        return {
          kind: 'invalid BSON',
          bytes: opMsg(bodySection(broken)),
          invalid: size !== doc.length,
        };
      case 2: // drop the terminating zero
        return {
          kind: 'invalid BSON',
          bytes: opMsg(bodySection(broken.subarray(0, broken.length - 1))),
          invalid: true,
        };
      default: // an element type that does not exist
        broken[4] = 0x80 + (xor % 0x7f);
        break;
    }
    // A flipped bit may still leave valid BSON (another letter in a string): bson itself decides.
    return {
      kind: 'invalid BSON',
      bytes: opMsg(bodySection(broken)),
      invalid: !isValidBson(broken),
    };
  });

/** Document sequences whose size disagrees with their content, or frames with no body at all. */
const badSequence = fc
  .tuple(
    fc.integer({ min: -100, max: 400 }).filter((d) => d !== 0),
    fc.boolean(),
    fc.string({ maxLength: 8 }),
  )
  .map(([sizeDelta, withBody, identifier]) => {
    const seq = sequenceSection(identifier || 'documents', [Buffer.from(serialize({ _id: 1 }))]);
    seq.writeInt32LE(seq.readInt32LE(1) + sizeDelta, 1);
    const sections = withBody
      ? Buffer.concat([bodySection({ insert: 'things', $db: 'fuzz' }), seq])
      : seq;
    return { kind: 'bad document sequence', bytes: opMsg(sections), invalid: true };
  });

/** OP_MSG with flag bits the spec says must fail the message. */
const unknownFlags = fc.integer({ min: 2, max: 15 }).map((bit) => ({
  kind: 'unknown required flag',
  bytes: opMsg(bodySection({ ping: 1, $db: 'fuzz' }), 1 << bit),
  invalid: true,
}));

/** Several valid frames followed by one damaged one in the same write. */
const validThenBroken = fc.tuple(fc.integer({ min: 1, max: 4 }), garbage).map(([n, g]) => ({
  kind: 'valid frames then garbage',
  bytes: Buffer.concat([...Array.from({ length: n }, pingFrame), g.bytes]),
  invalid: false,
}));

/** Framing-level attacks: the server must answer an error or close the connection. */
export const hostileFrames: fc.Arbitrary<HostileCase> = fc.oneof(
  garbage,
  truncated,
  badLength,
  unknownOpcode,
  wrongSectionKind,
  invalidBson,
  badSequence,
  unknownFlags,
  validThenBroken,
);

/**
 * Well-framed commands with wrong-typed or nonsensical arguments, always on the `fuzz` database
 * and never able to touch another one: the server must answer `ok: 0` or a harmless `ok: 1`.
 */
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.string({ maxLength: 12 }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.constantFrom('$gt', '$set', '$foo', 'a', '$where', '$expr', ''), fc.integer(), {
    maxKeys: 2,
  }),
);

export const hostileCommands: fc.Arbitrary<HostileCase> = fc
  .tuple(
    fc.constantFrom(
      'find',
      'insert',
      'update',
      'delete',
      'aggregate',
      'getMore',
      'killCursors',
      'count',
      'noSuchCommand',
      'createIndexes',
      'distinct',
    ),
    anyValue,
    fc.dictionary(
      fc.constantFrom(
        'filter',
        'documents',
        'updates',
        'deletes',
        'pipeline',
        'cursor',
        'limit',
        'sort',
        'projection',
        'key',
        'indexes',
        'lsid',
      ),
      anyValue,
      { maxKeys: 3 },
    ),
  )
  .map(([command, target, args]) => ({
    kind: `command ${command}`,
    bytes: opMsg(bodySection({ [command]: target, ...args, $db: 'fuzz' })),
    invalid: false,
  }));
