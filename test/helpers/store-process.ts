/**
 * Internal test helper: the store as a process of its own, as `npm run db` runs it (the store's
 * CLI, `--port 0` on 127.0.0.1, a temporary DATA_DIR, a generated credential), for tests that point
 * gateways at it with `MONGODB_URI`. Under jest (this file as TypeScript) the CLI runs from the
 * sources (`src/store/cli.ts` through test/helpers/ts-register.js, like test/helpers/entry.ts), so
 * a test never runs a stale build; compiled (`dist/test/helpers/store-process.js`, the benchmarks)
 * it runs the compiled sibling `dist/src/store/cli.js`, which is what `npm run db` runs.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface StoreProcess {
  /** `mongodb://<user>:<password>@127.0.0.1:<port>/pipeline-gateway?authSource=admin`, read from `<DATA_DIR>/store-uri`. */
  uri: string;
  dataDir: string;
  child: ChildProcess;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** SIGTERM (the store stops cleanly), wait for the exit, remove the data directory. */
  stop(): Promise<void>;
}

const compiled = __filename.endsWith('.js');
// test/helpers -> the project root, or dist/test/helpers -> dist/ (where src/ is compiled to).
const ROOT = path.resolve(__dirname, '../..');

function command(): string[] {
  const guard = path.join(__dirname, `exit-with-parent${compiled ? '.js' : '.ts'}`);
  if (compiled) return ['-r', guard, path.join(ROOT, 'src/store/cli.js')];
  return [
    '-r',
    path.join(ROOT, 'test/helpers/ts-register.js'),
    '-r',
    guard,
    path.join(ROOT, 'src/store/cli.ts'),
  ];
}

/** The test runner's own store and database variables must not reach the child. */
function childEnvironment(dataDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env))
    if (!key.startsWith('STORE_') && key !== 'MONGODB_URI') env[key] = value;
  return { ...env, DATA_DIR: dataDir };
}

/** Starts the store CLI on a free port and a new temporary data directory; resolves once it listens. */
export async function startStoreProcess(): Promise<StoreProcess> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'store-process-'));
  // stdin is a pipe this process never writes to: if it dies without stopping the store, the pipe
  // closes and test/helpers/exit-with-parent.ts stops the store instead of leaving it running.
  const child = spawn(process.execPath, [...command(), '--port', '0'], {
    env: childEnvironment(dataDir),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await new Promise<void>((resolve, reject) => {
      const check = (): void => {
        if (!/store listening on /.test(out)) return;
        child.stdout!.off('data', check);
        child.off('exit', early);
        resolve();
      };
      const early = (code: number | null, signal: string | null): void =>
        reject(
          new Error(`the store process exited (${signal ?? code}) before it listened:\n${out}`),
        );
      child.once('error', reject);
      child.once('exit', early);
      child.stdout!.on('data', check);
    });
    const uri = readFileSync(path.join(dataDir, 'store-uri'), 'utf8').trim();
    return { uri, dataDir, child, output: () => out, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** `uri` naming database `name` (the path of a MongoDB URL), its options kept. */
export function withDatabase(uri: string, name: string): string {
  const url = new URL(uri);
  url.pathname = `/${name}`;
  return url.toString();
}
