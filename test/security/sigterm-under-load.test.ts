import { spawn } from 'node:child_process';
import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.join(__dirname, '../..');
const ADMIN_TOKEN = 'sigterm-test-admin-token-0123456789';

type Outcome = { status: number; at: number } | { error: string; at: number };

function post(url: string): Promise<Outcome> {
  const body = JSON.stringify({ query: '{ viewer { role } teams { id name } }' });
  return new Promise((resolve) => {
    const req = http.request(`${url}/graphql`, { method: 'POST', agent: false, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, at: Date.now() }));
      res.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message, at: Date.now() }));
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message, at: Date.now() }));
    req.end(body);
  });
}

describe('SIGTERM under load', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'gw-sigterm-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('drains in-flight requests, refuses new connections, and exits 0', async () => {
    const child = spawn(process.execPath, ['-r', './test/helpers/ts-register.js', 'src/index.ts'], {
      cwd: ROOT,
      env: { ...process.env, PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'silent', SEED_DEMO: 'false', ADMIN_TOKEN, JWT_SECRET: '', MONGODB_URI: '', RATE_LIMIT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
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

    const outcomes: Outcome[] = [];
    let stop = false;
    const workers = Array.from({ length: 16 }, async () => {
      while (!stop) {
        const outcome = await post(url);
        outcomes.push(outcome);
        if ('error' in outcome) break; // the server is gone for this worker
      }
    });
    await new Promise((r) => setTimeout(r, 1500));
    const answeredBefore = outcomes.length;
    const killedAt = Date.now();
    child.kill('SIGTERM');
    const code = await exited;
    stop = true;
    await Promise.all(workers);

    expect(code).toBe(0);
    expect(answeredBefore).toBeGreaterThan(16);
    const answers = outcomes.filter((o): o is { status: number; at: number } => 'status' in o);
    // Every answer is a success, or fastify's 503 for a request arriving while closing; never a 500.
    expect(answers.filter((o) => o.status !== 200 && o.status !== 503)).toEqual([]);
    // Requests in flight at the signal were answered, not cut off.
    expect(answers.filter((o) => o.at >= killedAt && o.status === 200).length).toBeGreaterThan(0);
    // After that only refused or reset connections.
    const errors = outcomes.filter((o): o is { error: string; at: number } => 'error' in o);
    expect(errors.every((e) => ['ECONNREFUSED', 'ECONNRESET', 'socket hang up', 'EPIPE'].includes(e.error))).toBe(true);
  });
});
