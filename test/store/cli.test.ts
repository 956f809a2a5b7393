import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { MongoClient } from 'mongodb';

const root = resolve(__dirname, '../..');

describe('npm run db (src/store/cli.ts)', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'store-cli-'));
  });

  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints its URL, serves the driver, and stops cleanly on SIGINT', async () => {
    const child = spawn(
      process.execPath,
      ['-r', join(root, 'test/helpers/ts-register.js'), join(root, 'src/store/cli.ts'), '--port', '0'],
      { env: { ...process.env, DATA_DIR: dir }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
    const uri = await new Promise<string>((res, rej) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const m = /mongodb:\/\/127\.0\.0\.1:\d+\//.exec(stdout);
        if (m) res(m[0]);
      });
      child.on('exit', (code) => rej(new Error(`cli exited with ${code} before printing its URL: ${stdout}`)));
    });
    expect(stdout).toContain(`data in ${dir}`);
    const client = await MongoClient.connect(uri);
    try {
      await client.db('cli').collection('c').insertOne({ hello: 'world' });
      expect(await client.db('cli').collection('c').findOne({}, { projection: { _id: 0 } })).toEqual({ hello: 'world' });
    } finally {
      await client.close();
    }
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(stdout).toContain('SIGINT: stopping');
  });

  it('refuses a port that is not a number', async () => {
    const child = spawn(
      process.execPath,
      ['-r', join(root, 'test/helpers/ts-register.js'), join(root, 'src/store/cli.ts'), '--port', 'abc'],
      { env: { ...process.env, DATA_DIR: dir }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((res) => child.on('exit', (c) => res(c)));
    expect(code).toBe(1);
    expect(stderr).toContain('expected a port number 0..65535 in --port/PORT, got "abc"');
  });
});
