import { serialize } from 'bson';
import { decodeRequest } from '../../../src/store/wire/decode';
import { OP_MSG, OP_QUERY } from '../../../src/store/wire/op-codes';
import { WireError } from '../../../src/store/wire/wire-error';

function header(length: number, opCode: number): Buffer {
  const h = Buffer.alloc(16);
  h.writeInt32LE(length, 0);
  h.writeInt32LE(7, 4);
  h.writeInt32LE(opCode, 12);
  return h;
}

function opMsg(flags: number, ...sections: Buffer[]): Buffer {
  const f = Buffer.alloc(4);
  f.writeUInt32LE(flags, 0);
  const body = Buffer.concat([f, ...sections]);
  return Buffer.concat([header(16 + body.length, OP_MSG), body]);
}

const kind0 = (doc: object) => Buffer.concat([Buffer.from([0]), serialize(doc)]);
function kind1(id: string, docs: object[]): Buffer {
  const payload = Buffer.concat([Buffer.from(`${id}\0`), ...docs.map((d) => serialize(d))]);
  const size = Buffer.alloc(4);
  size.writeInt32LE(4 + payload.length, 0);
  return Buffer.concat([Buffer.from([1]), size, payload]);
}

describe('decodeRequest', () => {
  it('decodes OP_MSG with a body and a document sequence merged in', () => {
    const req = decodeRequest(
      opMsg(0, kind0({ insert: 'c', $db: 'd' }), kind1('documents', [{ a: 1 }, { a: 2 }])),
    );
    expect(req).toEqual({
      kind: 'msg',
      requestId: 7,
      flags: 0,
      body: { insert: 'c', $db: 'd', documents: [{ a: 1 }, { a: 2 }] },
    });
  });

  it('skips the CRC when checksumPresent is set', () => {
    const withCrc = Buffer.concat([opMsg(1, kind0({ ping: 1, $db: 'a' })), Buffer.alloc(4)]);
    withCrc.writeInt32LE(withCrc.length, 0);
    expect(decodeRequest(withCrc)).toMatchObject({ kind: 'msg', body: { ping: 1 } });
  });

  it('decodes a legacy OP_QUERY command', () => {
    const rest = Buffer.concat([
      Buffer.alloc(4),
      Buffer.from('admin.$cmd\0'),
      Buffer.alloc(8),
      serialize({ isMaster: 1 }),
    ]);
    const req = decodeRequest(Buffer.concat([header(16 + rest.length, OP_QUERY), rest]));
    expect(req).toEqual({
      kind: 'query',
      requestId: 7,
      fullCollectionName: 'admin.$cmd',
      query: { isMaster: 1 },
    });
  });

  it.each([
    [
      'an unknown opCode',
      Buffer.concat([header(20, 2012), Buffer.alloc(4)]),
      /unsupported opCode 2012/,
    ],
    [
      'an unknown section kind',
      opMsg(0, Buffer.from([2, 5, 0, 0, 0, 0])),
      /unknown OP_MSG section kind 2/,
    ],
    ['invalid BSON', opMsg(0, Buffer.from([0, 8, 0, 0, 0, 0x10, 0x61, 0, 0])), /BSON/],
    [
      'a document size past the end',
      opMsg(0, Buffer.from([0, 200, 0, 0, 0, 0])),
      /invalid BSON document size/,
    ],
    ['no body section', opMsg(0), /OP_MSG too short|no body/],
    ['two body sections', opMsg(0, kind0({ a: 1 }), kind0({ b: 1 })), /more than one body/],
    ['unknown required flag bits', opMsg(4, kind0({ a: 1 })), /unknown required flag bits/],
  ])('rejects %s', (_name, frame, message) => {
    expect(() => decodeRequest(frame)).toThrow(WireError);
    expect(() => decodeRequest(frame)).toThrow(message);
  });
});
