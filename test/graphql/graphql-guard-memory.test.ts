import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.join(__dirname, '../..');
const MB = 1024 * 1024;

/**
 * The gateway's memory under GraphQL requests carrying 1 MB of variables the operations do not
 * declare: nothing keeps them (not the cost memo, not the answer cache), so a thousand such
 * requests over fifty documents leave the process's memory where it was. Measured in a gateway
 * process of its own (the real entry, embedded store), whose garbage is collected before each
 * reading; no database is read, so the database mode does not matter. Resident memory also
 * counts what the allocator holds on to once megabyte bodies are freed: it rises over the first
 * few hundred such requests to a level that depends on the machine, then stays there, so the
 * first reading is taken after 500 requests. The heap and external memory (buffers) are the exact
 * measure of what is kept, and checked too.
 */
describe('GraphQL variables a request sends and its operation does not declare', () => {
  let dataDir: string;
  let child: ChildProcess;
  let url: string;
  const adminToken = randomBytes(24).toString('base64url');

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'gw-guard-memory-'));
    child = spawn(
      process.execPath,
      [
        '--expose-gc',
        '-r',
        './test/helpers/ts-register.js',
        '-r',
        './test/helpers/exit-with-parent.ts',
        '-r',
        './test/helpers/memory-probe.js',
        'src/index.ts',
      ],
      {
        cwd: ROOT,
        env: {
          ...process.env,
          PORT: '0',
          DATA_DIR: dataDir,
          LOG_LEVEL: 'silent',
          SEED_DEMO: 'false',
          ADMIN_TOKEN: adminToken,
          JWT_SECRET: '',
          MONGODB_URI: '',
          RATE_LIMIT: '0',
        },
        stdio: ['pipe', 'pipe', 'pipe', 'ipc'],
      },
    );
    let output = '';
    url = await new Promise<string>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        const match = /listening on (http:\/\/\S+)\n/.exec(output);
        if (match) resolve(match[1]);
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once('exit', (code) => reject(new Error(`gateway exited with ${code}:\n${output}`)));
    });
  }, 120_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await rm(dataDir, { recursive: true, force: true });
  });

  /** The gateway's memory once its garbage is collected. */
  const memory = () =>
    new Promise<NodeJS.MemoryUsage>((resolve) => {
      child.once('message', (usage) => resolve(usage as NodeJS.MemoryUsage));
      child.send('memory');
    });

  /** Request `i`: one of 50 documents, with about 1 MB of distinct variables it does not declare. */
  async function send(i: number): Promise<void> {
    const pad = `${i}-`.padEnd(1000, 'x');
    const variables = Object.fromEntries(Array.from({ length: 990 }, (_, k) => [`v${k}`, pad]));
    const body = JSON.stringify({ query: `query Q${i % 50} { viewer { role } }`, variables });
    const res = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body,
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { viewer: { role: 'ADMIN' } } });
  }

  /** `count` requests from `from` on, four at a time. */
  async function sendMany(from: number, count: number): Promise<void> {
    let next = from;
    const worker = async () => {
      while (next < from + count) await send(next++);
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
  }

  it('1 000 requests of 1 MB over 50 documents grow resident memory by less than 50 MB', async () => {
    // Every document seen (and kept by Apollo), and the allocator at its level, before the first
    // reading.
    await sendMany(0, 500);
    const before = await memory();
    await sendMany(500, 1000);
    const after = await memory();
    expect((after.rss - before.rss) / MB).toBeLessThan(50);
    expect((after.heapUsed - before.heapUsed) / MB).toBeLessThan(10);
    expect((after.external - before.external) / MB).toBeLessThan(10);
  }, 300_000);
});
