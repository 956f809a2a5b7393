import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startEntry } from '../helpers/entry';

const ADMIN_TOKEN = 'sigterm-test-admin-token-0123456789';

type Outcome = { status: number; at: number } | { error: string; at: number };

function post(url: string): Promise<Outcome> {
  const body = JSON.stringify({ query: '{ viewer { role } teams { id name } }' });
  return new Promise((resolve) => {
    const req = http.request(
      `${url}/graphql`,
      {
        method: 'POST',
        agent: false,
        headers: {
          authorization: `Bearer ${ADMIN_TOKEN}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, at: Date.now() }));
        res.on('error', (error: NodeJS.ErrnoException) =>
          resolve({ error: error.code ?? error.message, at: Date.now() }),
        );
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) =>
      resolve({ error: error.code ?? error.message, at: Date.now() }),
    );
    // The body in two halves 50 ms apart: a kept answer takes well under a millisecond, so without
    // the pause hardly a request would be in flight when the signal lands.
    const half = Math.floor(body.length / 2);
    req.write(body.slice(0, half));
    setTimeout(() => req.end(body.slice(half)), 50);
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
    const { child, url, exited } = await startEntry(dataDir, { ADMIN_TOKEN, RATE_LIMIT: '0' });

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
    expect(
      errors.every((e) =>
        ['ECONNREFUSED', 'ECONNRESET', 'socket hang up', 'EPIPE'].includes(e.error),
      ),
    ).toBe(true);
  });
});
