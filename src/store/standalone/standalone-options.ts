/** What `npm run db` runs with: flags first, then variables, then defaults. */
export interface StandaloneOptions {
  /** `--host` / `STORE_HOST`, default `127.0.0.1`. */
  host: string;
  /** `--port` / `STORE_PORT`, default 27017; 0 picks a free port. */
  port: number;
  /** `DATA_DIR`, default `./data` (the gateway's variable: the same directory by default). */
  dataDir: string;
  /** False only with `--no-auth`: every client is let in without credentials. */
  auth: boolean;
  /** `STORE_USER`: the user to require instead of a generated one (needs `STORE_PASSWORD`). */
  user: string | undefined;
  /** `STORE_PASSWORD`: the password to require; never written anywhere. */
  password: string | undefined;
}

type Env = Record<string, string | undefined>;

export const USAGE = 'usage: npm run db -- [--port <port>] [--host <address>] [--no-auth]';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;

/** Parses the command line and environment of `npm run db`; a bad value throws naming it. */
export function parseStandaloneOptions(argv: readonly string[], env: Env): StandaloneOptions {
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--no-auth') flags.set(arg, true);
    else if (arg === '--port' || arg === '--host') {
      const value = argv[++i];
      if (value === undefined) throw new Error(`${arg} needs a value; ${USAGE}`);
      flags.set(arg, value);
    } else throw new Error(`unknown argument ${JSON.stringify(arg)}; ${USAGE}`);
  }
  const given = (flag: string, variable: string): string | undefined => {
    const value = flags.get(flag);
    return typeof value === 'string' ? value : nonEmpty(env[variable]);
  };

  const rawPort = given('--port', 'STORE_PORT') ?? '27017';
  if (!/^\d+$/.test(rawPort) || Number(rawPort) > 65535) {
    throw new Error(
      `expected a port number 0..65535 in --port/STORE_PORT, got ${JSON.stringify(rawPort)}`,
    );
  }
  const host = given('--host', 'STORE_HOST') ?? '127.0.0.1';
  const auth = !flags.has('--no-auth');
  if (!auth && !LOOPBACK.test(host)) {
    throw new Error(
      `--no-auth is for local development and listens on a loopback address only, got host ${JSON.stringify(host)}`,
    );
  }
  const user = nonEmpty(env.STORE_USER);
  const password = env.STORE_PASSWORD === '' ? undefined : env.STORE_PASSWORD;
  if (user !== undefined && password === undefined)
    throw new Error('STORE_USER is set but STORE_PASSWORD is not: set both, or neither');
  return {
    host,
    port: Number(rawPort),
    dataDir: nonEmpty(env.DATA_DIR) ?? './data',
    auth,
    user,
    password,
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
