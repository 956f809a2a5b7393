import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serialize } from 'bson';
import { MongoClient, MongoServerError } from 'mongodb';
import { EmbeddedMongoServer } from '../../src/store/server';

function opMsg(body: object, extra: Buffer = Buffer.alloc(0)): Buffer {
  const payload = Buffer.concat([Buffer.alloc(4), Buffer.from([0]), serialize(body), extra]);
  const header = Buffer.alloc(16);
  header.writeInt32LE(16 + payload.length, 0);
  header.writeInt32LE(1, 4);
  header.writeInt32LE(2013, 12);
  return Buffer.concat([header, payload]);
}

/** Sends bytes on a raw socket and resolves with what came back once the server closed it. */
function sendRaw(port: number, bytes: Buffer): Promise<{ received: Buffer; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket: Socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => resolve({ received: Buffer.concat(chunks), closed: true }));
  });
}

describe('EmbeddedMongoServer', () => {
  let server: EmbeddedMongoServer;
  let client: MongoClient;

  beforeAll(async () => {
    server = await EmbeddedMongoServer.start();
    client = await MongoClient.connect(server.uri);
  });

  afterAll(async () => {
    await client.close();
    await server.stop();
  });

  it('listens on an ephemeral loopback port and reports its URL', () => {
    expect(server.port).toBeGreaterThan(0);
    expect(server.uri).toBe(`mongodb://127.0.0.1:${server.port}/`);
  });

  it('closes the connection on a malformed frame and applies nothing from it', async () => {
    const bad = opMsg(
      { insert: 'raw', documents: [{ a: 1 }], $db: 'srv' },
      Buffer.from([9, 0, 0, 0, 0]),
    );
    const { received, closed } = await sendRaw(server.port, bad);
    expect(closed).toBe(true);
    expect(received.length).toBe(0);
    expect(await client.db('srv').collection('raw').countDocuments()).toBe(0);
  });

  it('closes the connection on a declared length above 48,000,000 bytes', async () => {
    const header = Buffer.alloc(16);
    header.writeInt32LE(48_000_001, 0);
    header.writeInt32LE(2013, 12);
    const { closed } = await sendRaw(server.port, header);
    expect(closed).toBe(true);
  });

  it('keeps serving other connections after a bad client', async () => {
    await sendRaw(server.port, Buffer.from('GET / HTTP/1.1\r\n\r\n'));
    expect(await client.db('admin').command({ ping: 1 })).toEqual({ ok: 1 });
  });

  it('answers a bad operator with an error reply and stays up', async () => {
    const err = await client
      .db('srv')
      .collection('c')
      .find({ a: { $frob: 1 } })
      .toArray()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MongoServerError);
    expect((err as MongoServerError).code).toBe(2);
    expect(await client.db('admin').command({ ping: 1 })).toEqual({ ok: 1 });
  });

  it('applies unacknowledged (w: 0, moreToCome) writes without replying', async () => {
    await client
      .db('srv')
      .collection('w0')
      .insertOne({ a: 1 }, { writeConcern: { w: 0 } });
    // The next command on the pool is queued behind it on the same connection or sees its effect.
    let count = 0;
    for (let i = 0; i < 50 && count === 0; i++)
      count = await client.db('srv').collection('w0').countDocuments();
    expect(count).toBe(1);
  });

  it('emits every command received, so tests can count them', async () => {
    const seen: string[] = [];
    const listener = (name: string, db: string) => {
      if (db === 'srv') seen.push(name);
    };
    server.on('command', listener);
    await client.db('srv').collection('c').find({}).toArray();
    await client.db('srv').collection('c').find({ x: 1 }).toArray();
    server.off('command', listener);
    expect(seen.filter((n) => n === 'find')).toHaveLength(2);
  });
});

describe('EmbeddedMongoServer with a data directory', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'embedded-store-'));
  });

  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps documents and indexes across a restart', async () => {
    const first = await EmbeddedMongoServer.start({ dataDir: dir });
    const c1 = await MongoClient.connect(first.uri);
    await c1
      .db('p')
      .collection('c')
      .insertMany([{ k: 1 }, { k: 2 }]);
    await c1.db('p').collection('c').createIndex({ k: 1 }, { unique: true });
    await c1
      .db('p')
      .collection('c')
      .updateOne({ k: 2 }, { $set: { v: 'x' } });
    await c1.close();
    await first.stop();

    const second = await EmbeddedMongoServer.start({ dataDir: dir });
    const c2 = await MongoClient.connect(second.uri);
    try {
      const docs = await c2
        .db('p')
        .collection('c')
        .find({}, { projection: { _id: 0 } })
        .toArray();
      expect(docs).toEqual([{ k: 1 }, { k: 2, v: 'x' }]);
      const err = await c2
        .db('p')
        .collection('c')
        .insertOne({ k: 1 })
        .catch((e: unknown) => e);
      expect((err as MongoServerError).code).toBe(11000);
    } finally {
      await c2.close();
      await second.stop();
    }
  });
});
