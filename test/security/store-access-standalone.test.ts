import { spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { MongoClient } from 'mongodb';
import { startStandalone } from '../store/standalone-process';
import { nodeForOtherUsers } from '../helpers/other-user-node';

const ROOT = resolve(__dirname, '../..');
const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;

/**
 * What an intruder tries with the mongodb driver from a process of its own (as another local user
 * when the tests run as root): read the members, and make one of them an admin. Resolves with the
 * outcome of each, 'ok' or the server's error code.
 */
function intrude(uri: string): Promise<{ find: unknown; promote: unknown }> {
  const script = `
    const { MongoClient } = require('mongodb');
    (async () => {
      const client = new MongoClient(process.argv[1], { serverSelectionTimeoutMS: 3000 });
      const members = client.db('pipeline-gateway').collection('members');
      const outcome = {};
      for (const [name, run] of [['find', () => members.find({}).toArray()], ['promote', () => members.updateOne({}, { $set: { role: 'admin' } })]]) {
        try { await run(); outcome[name] = 'ok'; } catch (e) { outcome[name] = e.code ?? e.message; }
      }
      await client.close();
      console.log(JSON.stringify(outcome));
    })();`;
  return new Promise((res, rej) => {
    const child = spawn(nodeForOtherUsers(), ['-e', script, uri], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(asRoot ? { uid: NOBODY, gid: NOBODY } : {}),
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', rej);
    child.on('exit', () => {
      try {
        res(JSON.parse(out));
      } catch {
        rej(new Error(`intruder printed ${out}${err}`));
      }
    });
  });
}

describe('npm run db asks every client for credentials', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'store-standalone-'));
    // Readable on the way down, so only the store's own protection is tested.
    chmodSync(dir, 0o755);
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a client without credentials (13) and a wrong password (18), changing nothing; the generated URI gets in', async () => {
    const dataDir = join(dir, 'data');
    const store = await startStandalone(['--port', '0'], { DATA_DIR: dataDir });
    try {
      const uri = readFileSync(join(dataDir, 'store-uri'), 'utf8').trim();
      const owner = await MongoClient.connect(uri);
      try {
        await owner
          .db('pipeline-gateway')
          .collection('members')
          .insertOne({ email: 'ann@example.com', role: 'member' });
        const open = `mongodb://127.0.0.1:${store.port}/`;
        expect(await intrude(open)).toEqual({ find: 13, promote: 13 });
        const wrong = uri.replace(/:[^:@]+@/, ':not-the-password@');
        expect(await intrude(wrong)).toEqual({ find: 18, promote: 18 });
        expect(
          await owner
            .db('pipeline-gateway')
            .collection('members')
            .find({}, { projection: { _id: 0 } })
            .toArray(),
        ).toEqual([{ email: 'ann@example.com', role: 'member' }]);
      } finally {
        await owner.close();
      }
      // The data directory is out of reach too: 0700, every file 0600.
      expect(lstatSync(dataDir).mode & 0o777).toBe(0o700);
      for (const name of readdirSync(dataDir))
        expect([name, lstatSync(join(dataDir, name)).mode & 0o777]).toEqual([name, 0o600]);
      expect(readdirSync(dataDir).sort()).toEqual([
        'journal-0000000000.log',
        'mongod.lock',
        'store-credentials.json',
        'store-uri',
      ]);
    } finally {
      await store.stop();
    }
  });

  it('takes STORE_USER/STORE_PASSWORD and writes neither anywhere', async () => {
    const dataDir = join(dir, 'data');
    const password = 'pässword from the environment';
    const store = await startStandalone(['--port', '0'], {
      DATA_DIR: dataDir,
      STORE_USER: 'ops',
      STORE_PASSWORD: password,
    });
    try {
      expect(store.stdout()).toContain(
        `clients authenticate as ops with STORE_PASSWORD: mongodb://ops:****@127.0.0.1:${store.port}/pipeline-gateway?authSource=admin`,
      );
      expect(store.stdout()).not.toContain(password);
      const client = await MongoClient.connect(
        `mongodb://ops:${encodeURIComponent(password)}@127.0.0.1:${store.port}/pipeline-gateway?authSource=admin`,
      );
      await client.db('app').collection('c').insertOne({ a: 1 });
      await client.close();
      expect(await intrude(`mongodb://127.0.0.1:${store.port}/`)).toEqual({
        find: 13,
        promote: 13,
      });
      expect(existsSync(join(dataDir, 'store-credentials.json'))).toBe(false);
      expect(existsSync(join(dataDir, 'store-uri'))).toBe(false);
      for (const name of readdirSync(dataDir))
        expect(readFileSync(join(dataDir, name)).includes(Buffer.from('environment'))).toBe(false);
    } finally {
      await store.stop();
    }
  });

  it('lets everyone in with --no-auth, after a loud warning', async () => {
    const dataDir = join(dir, 'data');
    const store = await startStandalone(['--port', '0', '--no-auth'], { DATA_DIR: dataDir });
    try {
      expect(store.stderr()).toContain(
        'WARNING: --no-auth: the store accepts every connection without credentials.',
      );
      expect(store.stdout()).toContain(
        `listening WITHOUT AUTHENTICATION: mongodb://127.0.0.1:${store.port}/pipeline-gateway`,
      );
      expect(await intrude(`mongodb://127.0.0.1:${store.port}/`)).toEqual({
        find: 'ok',
        promote: 'ok',
      });
      expect(existsSync(join(dataDir, 'store-credentials.json'))).toBe(false);
    } finally {
      await store.stop();
    }
  });
});
