// Internal test helper: runs the real entry (`src/index.ts`) as a child process, from the sources.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const ROOT = path.join(__dirname, '../..');

export interface RunningEntry {
  child: ChildProcess;
  /** The base URL the entry printed. */
  url: string;
  /** Everything it printed so far (stdout and stderr). */
  output: () => string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

export interface SpawnedEntry {
  child: ChildProcess;
  /** Everything it printed so far (stdout and stderr). */
  output: () => string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  /** Resolves with the first match of `pattern` in the output; rejects if the entry exits first. */
  waitFor: (pattern: RegExp) => Promise<RegExpExecArray>;
}

/**
 * Spawns `src/index.ts` on an ephemeral port and `dataDir`, with no demo seed, no generated
 * secrets carried over from the environment and no `MONGODB_URI`. `env` adds or overrides
 * variables.
 */
export function spawnEntry(
  dataDir: string,
  env: Record<string, string> = {},
  args: readonly string[] = [],
): SpawnedEntry {
  const child = spawn(
    process.execPath,
    ['-r', './test/helpers/ts-register.js', 'src/index.ts', ...args],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        PORT: '0',
        DATA_DIR: dataDir,
        LOG_LEVEL: 'silent',
        SEED_DEMO: 'false',
        ADMIN_TOKEN: '',
        JWT_SECRET: '',
        MONGODB_URI: '',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const waitFor = (pattern: RegExp) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const check = setInterval(() => {
        const match = pattern.exec(output);
        if (match) {
          clearInterval(check);
          resolve(match);
        }
      }, 50);
      void exited.then((code) => {
        clearInterval(check);
        reject(new Error(`entry exited with ${code} before printing ${pattern}:\n${output}`));
      });
    });
  return { child, output: () => output, exited, waitFor };
}

/** spawnEntry, then waits for its "listening" line (the banner, printed last). */
export async function startEntry(
  dataDir: string,
  env: Record<string, string> = {},
): Promise<RunningEntry> {
  const entry = spawnEntry(dataDir, env);
  const [, url] = await entry.waitFor(/listening on (http:\/\/\S+)\n/);
  return { child: entry.child, url, output: entry.output, exited: entry.exited };
}
