import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.join(__dirname, '../..');

interface Running {
  child: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<number | null>;
}

/** Starts `src/index.ts` as the real entry would run, and waits for its "listening" line. */
async function startEntry(dataDir: string): Promise<Running> {
  const child = spawn(process.execPath, ['-r', './test/helpers/ts-register.js', 'src/index.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'silent', SEED_DEMO: 'false', ADMIN_TOKEN: '', JWT_SECRET: '', MONGODB_URI: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const check = setInterval(() => {
      const match = /listening on (http:\/\/[^\s]+) /.exec(output);
      if (match) {
        clearInterval(check);
        resolve(match[1]);
      }
    }, 50);
    void exited.then((code) => {
      clearInterval(check);
      reject(new Error(`entry exited with ${code} before listening:\n${output}`));
    });
  });
  return { child, url, output: () => output, exited };
}

describe('the entry (src/index.ts)', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'gw-entry-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('prints the URL and a generated admin token, serves, and exits 0 on SIGTERM', async () => {
    const run = await startEntry(dataDir);
    try {
      const token = /Generated admin token \(kept in .*admin-token\): (\S+)/.exec(run.output())?.[1];
      expect(token).toBeDefined();
      expect((await stat(path.join(dataDir, 'admin-token'))).mode & 0o777).toBe(0o600);
      expect((await fetch(`${run.url}/healthz`)).status).toBe(200);
      const viewer = await fetch(`${run.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ query: '{ viewer { role } }' }),
      });
      expect(await viewer.json()).toEqual({ data: { viewer: { role: 'ADMIN' } } });
    } finally {
      run.child.kill('SIGTERM');
    }
    expect(await run.exited).toBe(0);
  });

  it('reuses the kept admin token on the next start without printing it, and exits 0 on SIGINT', async () => {
    const run = await startEntry(dataDir);
    try {
      expect(run.output()).not.toContain('Generated admin token');
      expect((await fetch(`${run.url}/readyz`)).status).toBe(200);
    } finally {
      run.child.kill('SIGINT');
    }
    expect(await run.exited).toBe(0);
  });
});
