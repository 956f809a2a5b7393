import { spawn } from 'node:child_process';
import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MAIN_FIXTURE, toImportBody } from '../pipelines/fixtures/crm-fixture';
import { startEntry } from '../helpers/entry';

const ADMIN_TOKEN = 'signals-test-admin-token-0123456789';

/** A fresh temporary directory for the tests of the enclosing describe, removed after them. */
function useTempDir(prefix: string): () => string {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  return () => dir;
}

/**
 * POSTs an import whose body arrives in two halves 900 ms apart, calling `interrupt` 300 ms after
 * the first half: the signal lands while the request is in flight.
 */
function slowImport(url: string, interrupt: () => void): Promise<{ status: number; text: string }> {
  const body = Buffer.from(JSON.stringify(toImportBody(MAIN_FIXTURE, '2026-05-20T12:00:00Z')));
  const half = Math.floor(body.length / 2);
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${url}/crm/imports`,
      {
        method: 'POST',
        agent: false,
        headers: {
          authorization: `Bearer ${ADMIN_TOKEN}`,
          'content-type': 'application/json',
          'content-length': body.length,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.write(body.subarray(0, half));
    setTimeout(interrupt, 300);
    setTimeout(() => req.end(body.subarray(half)), 900);
  });
}

/**
 * The real entry in production mode (NODE_ENV=production: Apollo would install its own signal
 * handlers there, which jest's NODE_ENV=test hides). A signal arriving while an import's body is
 * still being uploaded must let that import finish and answer, then exit 0.
 */
describe.each(['SIGTERM', 'SIGINT'] as const)('%s in production mode', (signal) => {
  const dataDir = useTempDir('gw-signals-');

  it('drains a slow POST /crm/imports: the import answers 200, the process exits 0', async () => {
    const { child, url, exited, output } = await startEntry(dataDir(), {
      NODE_ENV: 'production',
      ADMIN_TOKEN,
    });
    const res = await slowImport(url, () => child.kill(signal));
    expect({ status: res.status, text: res.text }).toEqual({
      status: 200,
      text: expect.stringContaining('"snapshot_id"'),
    });
    const code = await exited;
    expect({ code, output: code === 0 ? '' : output() }).toEqual({ code: 0, output: '' });
  });
});

/**
 * As a person runs it: `npm start` at a terminal (a pseudo-terminal from util-linux's `script`),
 * Ctrl-C typed while an import is in flight. The terminal signals npm, its shell and the gateway
 * at once, and npm forwards the signal again: the import still answers and everything exits 0.
 */
describe('Ctrl-C at a terminal running npm start', () => {
  const dataDir = useTempDir('gw-ctrl-c-');

  it('lets the in-flight import finish, and npm exits 0', async () => {
    // `exec`: at a terminal the user's interactive shell puts npm in a job of its own and outlives
    // Ctrl-C; the non-interactive shell `script` starts would die of the signal in its place.
    const terminal = spawn('script', ['-qfec', 'exec npm start', '/dev/null'], {
      cwd: path.join(__dirname, '../..'),
      env: {
        ...process.env,
        SHELL: '/bin/sh',
        PORT: '0',
        DATA_DIR: dataDir(),
        SEED_DEMO: 'false',
        ADMIN_TOKEN,
        JWT_SECRET: '',
        MONGODB_URI: '',
        LOG_LEVEL: 'warn',
        NODE_ENV: 'production',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let screen = '';
    terminal.stdout!.on('data', (chunk: Buffer) => (screen += chunk.toString()));
    const exited = new Promise<number | null>((resolve) =>
      terminal.on('exit', (code) => resolve(code)),
    );
    const url = await new Promise<string>((resolve, reject) => {
      const check = setInterval(() => {
        const match = /listening on (http:\/\/\S+)\r?\n/.exec(screen);
        if (match) {
          clearInterval(check);
          resolve(match[1]);
        }
      }, 50);
      void exited.then(() => {
        clearInterval(check);
        reject(new Error(`npm start ended before listening:\n${screen}`));
      });
    });
    const res = await slowImport(url, () => terminal.stdin!.write('\u0003'));
    expect(res.status).toBe(200);
    const code = await exited;
    expect({ code, screen: code === 0 ? '' : screen.slice(-3000) }).toEqual({
      code: 0,
      screen: '',
    });
  }, 180_000);
});
