/**
 * Internal (benchmark): the processes `bench:history` runs on one data directory that outlives
 * them. The gateway is `npm start`'s program (dist/src/index.js); with `--db uri` the store is
 * `npm run db`'s program (dist/src/store/cli.js) and the gateway reaches it by MONGODB_URI.
 * Start-up is timed from spawn to the first `/healthz` 200 (the store: to its "listening" line).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';

/** The compiled tree this file runs from (dist/). */
const DIST = path.join(__dirname, '..', '..');
/** A gateway not up by then is stuck, not slow (300 000 deals start in under a minute). */
const START_LIMIT_MS = 10 * 60_000;

export interface Started {
  child: ChildProcess;
  /** Spawn to ready, in seconds. */
  seconds: number;
}

export interface GatewayOptions {
  port: number;
  adminToken: string;
  /** The embedded store's data directory; unused with `uri`. */
  dataDir: string;
  /** MONGODB_URI, or null for the embedded store. */
  uri: string | null;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** RSS of a running process, from /proc (Linux). */
export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? NaN) * 1024;
}

/** Bytes of every file under `dir`. */
export function dirBytes(dir: string): number {
  let sum = 0;
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    const stat = statSync(file, { throwIfNoEntry: false });
    if (!stat) continue; // removed meanwhile (a compaction's temporary file)
    sum += stat.isDirectory() ? dirBytes(file) : stat.size;
  }
  return sum;
}

/**
 * Starts the gateway. Limits that would stop the simulation are lifted: bodies up to 100 MiB (a
 * full import of 100 000 deals), no request time budget (an import may take longer than 10 s),
 * no rate limit (the read sweeps send hundreds of requests). The rest of the environment,
 * SNAPSHOT_RETENTION_DAYS for one, passes through.
 */
export async function startGateway(options: GatewayOptions): Promise<Started> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(options.port),
    HOST: '127.0.0.1',
    ADMIN_TOKEN: options.adminToken,
    DATA_DIR: options.dataDir,
    SEED_DEMO: 'false',
    LOG_LEVEL: 'warn',
    BODY_LIMIT: String(100 * 1024 * 1024),
    REQUEST_TIMEOUT_MS: '0',
    RATE_LIMIT: '0',
  };
  if (options.uri) env.MONGODB_URI = options.uri;
  else delete env.MONGODB_URI;
  const started = performance.now();
  const child = spawn(process.execPath, [path.join(DIST, 'src/index.js')], {
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`the gateway exited with code ${child.exitCode} before answering /healthz`);
    if (performance.now() - started > START_LIMIT_MS) {
      await stop(child);
      throw new Error(
        `the gateway did not answer /healthz within ${START_LIMIT_MS / 60_000} minutes`,
      );
    }
    const ok = await fetch(`http://127.0.0.1:${options.port}/healthz`).then(
      (res) => res.ok,
      () => false,
    );
    if (ok) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { child, seconds: (performance.now() - started) / 1000 };
}

/** Starts the standalone store on `dataDir` and `port`; answers its URI with the generated credential. */
export async function startStore(
  dataDir: string,
  port: number,
): Promise<Started & { uri: string }> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [path.join(DIST, 'src/store/cli.js'), '--port', String(port)],
    {
      env: { ...process.env, DATA_DIR: dataDir, STORE_USER: '', STORE_PASSWORD: '' },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.once('error', reject);
    child.once('exit', (code) =>
      reject(new Error(`the store exited with code ${code} before it listened:\n${out}`)),
    );
    const onOutput = (chunk: Buffer): void => {
      out += chunk;
      if (!/listening on /.test(out)) return;
      child.removeAllListeners('exit');
      // Keeps reading what it prints later (its stop), without listening for the line again.
      child.stdout!.off('data', onOutput).resume();
      resolve();
    };
    child.stdout!.on('data', onOutput);
  });
  const seconds = (performance.now() - started) / 1000;
  const uri = readFileSync(path.join(dataDir, 'store-uri'), 'utf8').trim();
  return { child, seconds, uri };
}

/** SIGTERM, and waits for the exit (a gateway finishes in-flight work; the store flushes). */
export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}
