import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient, MongoServerError } from 'mongodb';
import mongoose from 'mongoose';
import { deriveScramCredential } from '../../../src/store/auth/scram-credential';
import { EmbeddedMongoServer } from '../../../src/store/server';
import { CommandConnection, ScramClient } from './command-connection';

const USER = 'store-user';
const PASSWORD = 'Correct-Horse_Battery-Staple-0123';
const credential = deriveScramCredential(USER, PASSWORD);

const withPassword = (
  server: EmbeddedMongoServer,
  password = PASSWORD,
  user = USER,
  authSource = 'admin',
): string =>
  server.uri.replace(
    'mongodb://',
    `mongodb://${encodeURIComponent(user)}:${encodeURIComponent(password)}@`,
  ) + `?authSource=${authSource}`;

const failure = async (promise: Promise<unknown>): Promise<MongoServerError> => {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(MongoServerError);
  return err as MongoServerError;
};

describe('SCRAM-SHA-256 authentication through the mongodb driver', () => {
  let server: EmbeddedMongoServer;
  beforeAll(async () => {
    server = await EmbeddedMongoServer.start({ credential });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('lets the driver in with the right password, in one speculative round trip plus one', async () => {
    const seen: string[] = [];
    const listener = (name: string): void => {
      seen.push(name);
    };
    server.on('command', listener);
    const client = await MongoClient.connect(withPassword(server), { maxPoolSize: 1 });
    try {
      await client.db('app').collection('c').insertOne({ a: 1 });
      expect(
        await client
          .db('app')
          .collection('c')
          .findOne({}, { projection: { _id: 0 } }),
      ).toEqual({ a: 1 });
      const status = await client.db('admin').command({ connectionStatus: 1 });
      expect(status.authInfo).toEqual({
        authenticatedUsers: [{ user: USER, db: 'admin' }],
        authenticatedUserRoles: [{ role: 'root', db: 'admin' }],
      });
    } finally {
      await client.close();
      server.off('command', listener);
    }
    // The first step rides in the handshake (speculativeAuthenticate), so no saslStart of its own.
    expect(seen).toContain('saslContinue');
    expect(seen).not.toContain('saslStart');
  });

  it('refuses every command but the handshake without credentials: code 13, and nothing is written', async () => {
    const client = new MongoClient(server.uri, { serverSelectionTimeoutMS: 2000 });
    try {
      const find = await failure(client.db('app').collection('c').find({}).toArray());
      expect(find).toMatchObject({
        code: 13,
        codeName: 'Unauthorized',
        message: 'Command find requires authentication',
      });
      const insert = await failure(client.db('app').collection('c').insertOne({ intruder: true }));
      expect(insert).toMatchObject({ code: 13, message: 'Command insert requires authentication' });
      expect(await failure(client.db('app').command({ listCollections: 1 }))).toMatchObject({
        code: 13,
      });
      expect(await failure(client.db('admin').command({ listDatabases: 1 }))).toMatchObject({
        code: 13,
      });
      expect(
        await failure(
          client
            .db('app')
            .command({ update: 'c', updates: [{ q: {}, u: { $set: { role: 'admin' } } }] }),
        ),
      ).toMatchObject({ code: 13 });
      // The handshake and liveness commands still answer.
      expect(await client.db('admin').command({ ping: 1 })).toEqual({ ok: 1 });
      expect((await client.db('admin').command({ buildInfo: 1 })).version).toBe('7.0.0');
      expect(
        (await client.db('admin').command({ connectionStatus: 1 })).authInfo.authenticatedUsers,
      ).toEqual([]);
    } finally {
      await client.close();
    }
    const owner = await MongoClient.connect(withPassword(server));
    try {
      expect(await owner.db('app').collection('c').countDocuments({ intruder: true })).toBe(0);
    } finally {
      await owner.close();
    }
  });

  it('fails a wrong password, an unknown user and another authSource alike: 18, "Authentication failed."', async () => {
    for (const uri of [
      withPassword(server, 'wrong'),
      withPassword(server, PASSWORD, 'nobody'),
      withPassword(server, PASSWORD, USER, 'app'),
    ]) {
      const client = new MongoClient(uri, { serverSelectionTimeoutMS: 2000 });
      const err = await failure(client.connect());
      expect(err).toMatchObject({
        code: 18,
        codeName: 'AuthenticationFailed',
        message: 'Authentication failed.',
      });
      await client.close();
    }
  });

  it('answers SCRAM-SHA-1 with MechanismUnavailable (334)', async () => {
    const client = new MongoClient(`${withPassword(server)}&authMechanism=SCRAM-SHA-1`, {
      serverSelectionTimeoutMS: 2000,
    });
    const err = await failure(client.connect());
    expect(err).toMatchObject({
      code: 334,
      message: 'Received authentication for mechanism SCRAM-SHA-1 which is not enabled',
    });
    await client.close();
  });

  it('advertises SCRAM-SHA-256 for any user name asked about, so the answer names no users', async () => {
    const client = await MongoClient.connect(withPassword(server));
    try {
      for (const user of [USER, 'nobody']) {
        const hello = await client
          .db('admin')
          .command({ hello: 1, saslSupportedMechs: `admin.${user}` });
        expect(hello.saslSupportedMechs).toEqual(['SCRAM-SHA-256']);
      }
    } finally {
      await client.close();
    }
  });
});

describe('the SASL conversation on one raw connection', () => {
  let server: EmbeddedMongoServer;
  beforeAll(async () => {
    server = await EmbeddedMongoServer.start({ credential });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('without skipEmptyExchange ends with an empty round, and only then the connection is authenticated', async () => {
    const conn = await CommandConnection.open(server.port);
    const other = await CommandConnection.open(server.port);
    try {
      const scram = new ScramClient(USER, PASSWORD);
      const start = await conn.command('admin', {
        saslStart: 1,
        mechanism: 'SCRAM-SHA-256',
        payload: scram.first,
      });
      expect(start).toMatchObject({ ok: 1, done: false, conversationId: expect.any(Number) });
      const proof = await conn.command('admin', {
        saslContinue: 1,
        conversationId: start.conversationId,
        payload: scram.final(start.payload),
      });
      expect(proof).toMatchObject({ ok: 1, done: false, conversationId: start.conversationId });
      expect(proof.payload.toString()).toBe(`v=${scram.serverSignature!.toString('base64')}`);
      expect(await conn.command('app', { find: 'c' })).toMatchObject({ ok: 0, code: 13 });
      const empty = await conn.command('admin', {
        saslContinue: 1,
        conversationId: start.conversationId,
        payload: Buffer.alloc(0),
      });
      expect(empty).toMatchObject({ ok: 1, done: true });
      expect(empty.payload.length).toBe(0);
      expect(await conn.command('app', { find: 'c' })).toMatchObject({ ok: 1 });
      // Authentication belongs to the connection that made it.
      expect(await other.command('app', { find: 'c' })).toMatchObject({
        ok: 0,
        code: 13,
        errmsg: 'Command find requires authentication',
      });
    } finally {
      conn.close();
      other.close();
    }
  });

  it('fails a wrong conversationId and a replayed proof, and a failed attempt leaves nothing behind', async () => {
    const conn = await CommandConnection.open(server.port);
    try {
      const scram = new ScramClient(USER, PASSWORD);
      const start = await conn.command('admin', {
        saslStart: 1,
        mechanism: 'SCRAM-SHA-256',
        payload: scram.first,
        options: { skipEmptyExchange: true },
      });
      const final = scram.final(start.payload);
      expect(
        await conn.command('admin', {
          saslContinue: 1,
          conversationId: start.conversationId + 1,
          payload: final,
        }),
      ).toMatchObject({
        ok: 0,
        code: 18,
        errmsg: 'Authentication failed.',
      });
      // The failure ended the conversation: the right message no longer completes it.
      expect(
        await conn.command('admin', {
          saslContinue: 1,
          conversationId: start.conversationId,
          payload: final,
        }),
      ).toMatchObject({ ok: 0, code: 18 });
      // A proof made for one conversation does not fit the next (the server nonce differs).
      const again = await conn.command('admin', {
        saslStart: 1,
        mechanism: 'SCRAM-SHA-256',
        payload: scram.first,
        options: { skipEmptyExchange: true },
      });
      expect(
        await conn.command('admin', {
          saslContinue: 1,
          conversationId: again.conversationId,
          payload: final,
        }),
      ).toMatchObject({ ok: 0, code: 18 });
      expect(await conn.command('app', { find: 'c' })).toMatchObject({ ok: 0, code: 13 });
    } finally {
      conn.close();
    }
  });

  it('gives an unknown user the same kind of first answer as the real one, with a stable salt', async () => {
    const conn = await CommandConnection.open(server.port);
    try {
      const salts: string[] = [];
      for (const user of [USER, 'ghost', 'ghost']) {
        const reply = await conn.command('admin', {
          saslStart: 1,
          mechanism: 'SCRAM-SHA-256',
          payload: new ScramClient(user, 'x').first,
        });
        expect(reply).toMatchObject({ ok: 1, done: false });
        const text = reply.payload.toString();
        expect(text).toMatch(/^r=[^,]+,s=[A-Za-z0-9+/=]{40},i=15000$/);
        salts.push(/s=([^,]+)/.exec(text)![1]);
      }
      expect(salts[1]).toBe(salts[2]);
      expect(salts[1]).not.toBe(salts[0]);
    } finally {
      conn.close();
    }
  });
});

describe('authentication over a Unix socket', () => {
  let dir: string;
  let server: EmbeddedMongoServer;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'store-auth-'));
    server = await EmbeddedMongoServer.start({ socketPath: join(dir, 'mongod.sock'), credential });
  });
  afterAll(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the driver with credentials and refuses it without', async () => {
    expect(server.uri).toBe(`mongodb://${encodeURIComponent(join(dir, 'mongod.sock'))}/`);
    const client = await MongoClient.connect(withPassword(server));
    try {
      await client.db('app').collection('c').insertOne({ over: 'socket' });
      expect(await client.db('app').collection('c').countDocuments()).toBe(1);
    } finally {
      await client.close();
    }
    const anonymous = new MongoClient(server.uri, { serverSelectionTimeoutMS: 2000 });
    expect(await failure(anonymous.db('app').collection('c').findOne({}))).toMatchObject({
      code: 13,
    });
    await anonymous.close();
  });

  it('serves mongoose with credentials', async () => {
    const connection = await mongoose
      .createConnection(withPassword(server), { dbName: 'mongoose_auth' })
      .asPromise();
    try {
      const Thing = connection.model('Thing', new mongoose.Schema({ name: String }));
      await Thing.create({ name: 'kept' });
      expect((await Thing.findOne({ name: 'kept' }).lean())?.name).toBe('kept');
    } finally {
      await connection.close();
    }
    const wrong = mongoose.createConnection(withPassword(server, 'wrong'), {
      serverSelectionTimeoutMS: 2000,
    });
    await expect(wrong.asPromise()).rejects.toMatchObject({ code: 18 });
    await wrong.close();
  });
});
