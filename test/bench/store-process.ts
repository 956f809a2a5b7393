/**
 * Internal (benchmark): the store as its own process, as `npm run db` runs it (compiled
 * dist/src/store/cli.js, a free port, a temporary DATA_DIR, a generated credential), seeded with
 * the demo company by `npm run seed`'s program with MONGODB_URI set.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

export interface StoreProcess {
  /** The connection URI with the generated user and password (from `<DATA_DIR>/store-uri`). */
  uri: string;
  child: ChildProcess;
  seedSeconds: number;
  stop(): Promise<void>;
}

// Compiled siblings: this file runs from dist/test/bench.
const DIST_SRC = path.resolve(__dirname, '../../src');

export async function startSeededStore(deals: number): Promise<StoreProcess> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-store-'));
  // BENCH_NODE_ARGS: Node options for the servers, the store's included (child-processes.ts).
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== '');
  const child = spawn(
    process.execPath,
    [...nodeArgs, path.join(DIST_SRC, 'store/cli.js'), '--port', '0'],
    {
      env: { ...process.env, DATA_DIR: dataDir, STORE_USER: '', STORE_PASSWORD: '' },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await new Promise<void>((resolve, reject) => {
      let out = '';
      const early = (code: number | null) =>
        reject(new Error(`the store exited with code ${code} before it listened:\n${out}`));
      child.once('error', reject);
      child.once('exit', early);
      // Only this listener goes once the store listens: stop() waits on an 'exit' listener of its own.
      const onData = (chunk: Buffer) => {
        out += chunk;
        if (/listening on /.test(out)) {
          child.off('exit', early);
          child.stdout!.off('data', onData);
          child.stdout!.resume();
          resolve();
        }
      };
      child.stdout!.on('data', onData);
    });
    const uri = readFileSync(path.join(dataDir, 'store-uri'), 'utf8').trim();
    const seeded = performance.now();
    await promisify(execFile)(
      process.execPath,
      [path.join(DIST_SRC, 'cli/seed.js'), '--deals', String(deals)],
      {
        env: { ...process.env, MONGODB_URI: uri },
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    return { uri, child, seedSeconds: (performance.now() - seeded) / 1000, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
