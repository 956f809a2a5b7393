/** Internal (benchmark): one wrk run over a request list, read back from requests.lua's JSON line. */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** One request of a list: sent as is, in turn with the others. */
export interface WrkRequest {
  method: 'GET' | 'POST';
  /** Path and query, already encoded. */
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface WrkRun {
  /** Requests completed (any status). */
  requests: number;
  seconds: number;
  /** Answers with a status of 400 or more. */
  non2xx: number;
  /** Connect, read, write errors and time-outs. */
  socketErrors: number;
  p50Ms: number;
  p99Ms: number;
}

export interface WrkLoad {
  /** Where the list was written (see writeRequestList). */
  requestFile: string;
  /** The server; with `addresses`, each wrk thread sends to one of them instead. */
  url: string;
  addresses?: string[];
  threads: number;
  connections: number;
  seconds: number;
}

// Beside this file when run from source; from dist/test/bench/wrk, in the source tree.
const SCRIPT = [
  path.join(__dirname, 'requests.lua'),
  path.resolve(__dirname, '../../../../test/bench/wrk/requests.lua'),
].find((file) => existsSync(file))!;

/** Writes the line format requests.lua reads (tab-separated; no field may hold a tab or a newline). */
export function writeRequestList(file: string, requests: WrkRequest[]): void {
  const lines = requests.map((r) => {
    const fields = [
      r.method,
      r.path,
      r.body ?? '',
      ...Object.entries(r.headers).map(([name, value]) => `${name}: ${value}`),
    ];
    for (const field of fields)
      if (/[\t\r\n]/.test(field))
        throw new Error(
          `a wrk request field may not hold a tab or newline: ${JSON.stringify(field)}`,
        );
    return fields.join('\t');
  });
  writeFileSync(file, `${lines.join('\n')}\n`);
}

/** Finds wrk; as root, installs Debian's package when it is missing; else says how and exits. */
export function ensureWrk(): void {
  const found = (): boolean => {
    try {
      execFileSync('wrk', ['--version'], { stdio: 'ignore' });
      return true;
    } catch (error) {
      // wrk --version prints its usage and exits 1: present. ENOENT: absent.
      return (error as NodeJS.ErrnoException).code !== 'ENOENT';
    }
  };
  if (found()) return;
  const command = 'apt-get update && apt-get install -y wrk';
  if (process.getuid?.() !== 0) {
    console.error(`wrk is not installed; install it with: sudo sh -c '${command}'`);
    process.exit(1);
  }
  console.log(`wrk is not installed; running: ${command}`);
  execFileSync('sh', ['-c', command], { stdio: 'inherit' });
  if (!found()) throw new Error('wrk is still missing after apt-get install');
}

export function runWrk(load: WrkLoad): Promise<WrkRun> {
  const args = [
    '-t',
    String(load.threads),
    '-c',
    String(load.connections),
    '-d',
    `${load.seconds}s`,
    '-s',
    SCRIPT,
    load.url,
  ];
  const env = {
    ...process.env,
    WRK_REQUESTS: load.requestFile,
    WRK_ADDRESSES: load.addresses?.join(',') ?? '',
  };
  const child = spawn('wrk', args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('WRK_JSON '));
      if (code !== 0 || !line)
        return reject(new Error(`wrk exited with ${code} and no figures:\n${out}${err}`));
      const r = JSON.parse(line.slice('WRK_JSON '.length));
      const e = r.errors;
      resolve({
        requests: r.requests,
        seconds: r.durationMicros / 1e6,
        non2xx: e.status,
        socketErrors: e.connect + e.read + e.write + e.timeout,
        p50Ms: r.p50Micros / 1000,
        p99Ms: r.p99Micros / 1000,
      });
    });
  });
}
