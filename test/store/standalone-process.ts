// Internal to the tests of `npm run db`: the CLI in a child process, as a user runs it.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '../..');

export interface StandaloneProcess {
  child: ChildProcessWithoutNullStreams;
  /** Everything printed so far. */
  stdout(): string;
  stderr(): string;
  /** The port from the "listening on 127.0.0.1:<port>" line. */
  port: number;
  /** Sends SIGINT and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `src/store/cli.ts` with `args` and `env` (added to this process's), resolved once it listens. */
export function startStandalone(
  args: string[],
  env: Record<string, string>,
): Promise<StandaloneProcess> {
  const child = spawn(
    process.execPath,
    ['-r', join(root, 'test/helpers/ts-register.js'), join(root, 'src/store/cli.ts'), ...args],
    {
      env: { ...withoutStoreVariables(process.env), ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
  return new Promise((res, rej) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const listening = /store listening on 127\.0\.0\.1:(\d+) /.exec(stdout);
      if (listening) {
        res({
          child,
          stdout: () => stdout,
          stderr: () => stderr,
          port: Number(listening[1]),
          stop: () => {
            child.kill('SIGINT');
            return exited;
          },
        });
      }
    });
    child.on('exit', (code) =>
      rej(new Error(`cli exited with ${code} before listening: ${stdout}${stderr}`)),
    );
  });
}

/** Runs the CLI expecting it to refuse to start; resolves with its exit code and stderr. */
export async function refusedStandalone(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(
    process.execPath,
    ['-r', join(root, 'test/helpers/ts-register.js'), join(root, 'src/store/cli.ts'), ...args],
    {
      env: { ...withoutStoreVariables(process.env), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdout.resume();
  const code = await new Promise<number | null>((res) => child.on('exit', (c) => res(c)));
  return { code, stderr };
}

/** The test runner's own STORE_* variables must not leak into the child. */
function withoutStoreVariables(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env))
    if (value !== undefined && !key.startsWith('STORE_')) out[key] = value;
  return out;
}
