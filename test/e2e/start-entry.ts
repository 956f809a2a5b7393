// Internal helper of the browser tests: runs the real entry as `npm start` would.
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');

export interface StartedEntry {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
  /** What the entry printed: the base URL, the explorer URL and the generated admin token. */
  url: string;
  explorerUrl: string;
  token: string;
}

/**
 * Runs `src/index.ts` (transpiled on the fly) on a fresh data folder with the demo company, and
 * reads the banner it prints last: the base URL, the explorer's URL and the admin token it
 * generated.
 */
export async function startEntry(dataDir: string): Promise<StartedEntry> {
  const child = spawn(process.execPath, ['-r', './test/helpers/ts-register.js', 'src/index.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      SEED_DEMO: 'true',
      ADMIN_TOKEN: '',
      JWT_SECRET: '',
      MONGODB_URI: '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  // The banner, printed last: the URLs and the admin token this start generated.
  const printed =
    /listening on (http:\/\/\S+)\n[\s\S]*Explorer: +(http:\/\/\S+)[\s\S]*Admin token: +(\S+) \(generated now/;
  const match = await new Promise<RegExpExecArray>((done, fail) => {
    const onData = (): void => {
      const found = printed.exec(output);
      if (found) {
        child.stdout!.off('data', onData);
        done(found);
      }
    };
    child.stdout!.on('data', onData);
    void exited.then((code) =>
      fail(
        new Error(`the entry exited with ${code} before printing its URL and token:\n${output}`),
      ),
    );
  });
  return {
    child,
    output: () => output,
    exited,
    url: match[1]!,
    explorerUrl: match[2]!,
    token: match[3]!,
  };
}
