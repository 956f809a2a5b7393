import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { refusedStandalone, startStandalone } from './standalone-process';

describe('npm run db (src/store/cli.ts)', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'store-cli-'));
  });

  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('generates credentials on first start, prints the URI once, keeps it in store-uri, and stops cleanly on SIGINT', async () => {
    const first = await startStandalone(['--port', '0'], { DATA_DIR: dir });
    const uri = readFileSync(join(dir, 'store-uri'), 'utf8').trim();
    expect(uri).toMatch(
      new RegExp(
        `^mongodb://pipeline-gateway:[A-Za-z0-9_-]{32}@127\\.0\\.0\\.1:${first.port}/pipeline-gateway\\?authSource=admin$`,
      ),
    );
    expect(first.stdout()).toContain(
      `Generated store credentials (the URI is kept in ${join(dir, 'store-uri')}, mode 0600): ${uri}\n`,
    );
    expect(first.stdout()).toContain(`store listening on 127.0.0.1:${first.port} (data in ${dir})`);
    expect(statSync(join(dir, 'store-uri')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'store-credentials.json')).mode & 0o777).toBe(0o600);
    const password = /:([^:@]+)@/.exec(uri)![1];
    expect(readFileSync(join(dir, 'store-credentials.json'), 'utf8')).not.toContain(password);

    const client = await MongoClient.connect(uri);
    try {
      await client.db('cli').collection('c').insertOne({ hello: 'world' });
      expect(
        await client
          .db('cli')
          .collection('c')
          .findOne({}, { projection: { _id: 0 } }),
      ).toEqual({ hello: 'world' });
    } finally {
      await client.close();
    }
    expect(await first.stop()).toBe(0);
    expect(first.stdout()).toContain('SIGINT: stopping');

    // A restart keeps the credentials, prints no password, and points store-uri at the new port.
    const credentials = readFileSync(join(dir, 'store-credentials.json'), 'utf8');
    const second = await startStandalone(['--port', '0'], { DATA_DIR: dir });
    try {
      expect(second.stdout()).not.toContain(password);
      expect(second.stdout()).toContain(
        `mongodb://pipeline-gateway:****@127.0.0.1:${second.port}/pipeline-gateway?authSource=admin`,
      );
      expect(readFileSync(join(dir, 'store-credentials.json'), 'utf8')).toBe(credentials);
      const moved = readFileSync(join(dir, 'store-uri'), 'utf8').trim();
      expect(moved).toBe(uri.replace(`:${first.port}/`, `:${second.port}/`));
      const again = await MongoClient.connect(moved);
      try {
        expect(await again.db('cli').collection('c').countDocuments()).toBe(1);
      } finally {
        await again.close();
      }
    } finally {
      await second.stop();
    }
  });

  it('takes STORE_PORT when --port is not given', async () => {
    const probe = await startStandalone(['--port', '0'], { DATA_DIR: dir });
    const { port } = probe;
    await probe.stop();
    const cli = await startStandalone([], { DATA_DIR: dir, STORE_PORT: String(port), PORT: '1' });
    try {
      expect(cli.port).toBe(port);
    } finally {
      await cli.stop();
    }
  });

  it('refuses a port that is not a number, an unknown argument, and --no-auth on a non-loopback address', async () => {
    expect(await refusedStandalone(['--port', 'abc'], { DATA_DIR: dir })).toEqual({
      code: 1,
      stderr: 'expected a port number 0..65535 in --port/STORE_PORT, got "abc"\n',
    });
    expect(await refusedStandalone([], { DATA_DIR: dir, STORE_PORT: '70000' })).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('got "70000"'),
    });
    expect(await refusedStandalone(['--auth'], { DATA_DIR: dir })).toEqual({
      code: 1,
      stderr:
        'unknown argument "--auth"; usage: npm run db -- [--port <port>] [--host <address>] [--no-auth]\n',
    });
    expect(await refusedStandalone(['--no-auth', '--host', '0.0.0.0'], { DATA_DIR: dir })).toEqual({
      code: 1,
      stderr:
        '--no-auth is for local development and listens on a loopback address only, got host "0.0.0.0"\n',
    });
    expect(await refusedStandalone([], { DATA_DIR: dir, STORE_USER: 'someone' })).toEqual({
      code: 1,
      stderr: 'STORE_USER is set but STORE_PASSWORD is not: set both, or neither\n',
    });
  });
});
