import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEntry, type RunningEntry } from '../helpers/entry';
import { startStoreProcess, withDatabase, type StoreProcess } from '../helpers/store-process';

const ROOT = path.resolve(__dirname, '..', '..');

/** Runs `src/cli/admin-token.ts` as `npm run admin-token` would (from source). */
function runCli(args: string[], env: Record<string, string>) {
  const result = spawnSync(
    process.execPath,
    ['-r', './test/helpers/ts-register.js', 'src/cli/admin-token.ts', ...args],
    {
      cwd: ROOT,
      env: { ...process.env, MONGODB_URI: '', ADMIN_TOKEN: '', LOG_LEVEL: 'silent', ...env },
      encoding: 'utf8',
    },
  );
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The status of `GET /teams` with `token` (no keep-alive: the instances stop promptly). */
function statusWith(url: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      `${url}/teams`,
      { headers: { authorization: `Bearer ${token}` }, agent: false },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
  });
}

async function stop(entry: RunningEntry): Promise<void> {
  entry.child.kill('SIGTERM');
  expect(await entry.exited).toBe(0);
}

const TOKEN_LINE = /^[A-Za-z0-9_-]{43}\n$/;

describe('npm run admin-token', () => {
  let scratch: string;
  beforeAll(() => {
    scratch = mkdtempSync(path.join(tmpdir(), 'admin-token-cli-'));
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('prints its usage with --help, and refuses an unknown option', () => {
    const help = runCli(['--help'], { DATA_DIR: scratch });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: npm run -s admin-token \[-- --rotate\]/);
    expect(help.stdout).toContain('--rotate   replace the admin token');
    const bad = runCli(['--rotte'], { DATA_DIR: scratch });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("Unknown option '--rotte'");
    expect(bad.stderr).toContain('Usage: npm run -s admin-token');
  });

  it('on the embedded database: prints the token in DATA_DIR, rotates it only while no gateway runs, and the next start uses the new one', async () => {
    const dataDir = path.join(scratch, 'embedded');
    const none = runCli([], { DATA_DIR: dataDir });
    expect(none.status).toBe(1);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain(
      'No admin token yet: the gateway generates one on its first start',
    );

    let gateway = await startEntry(dataDir);
    const first = readFileSync(path.join(dataDir, 'admin-token'), 'utf8').trim();
    try {
      const printed = runCli([], { DATA_DIR: dataDir });
      expect(printed).toEqual({ status: 0, stdout: `${first}\n`, stderr: '' });
      const refused = runCli(['--rotate'], { DATA_DIR: dataDir });
      expect(refused.status).toBe(1);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toMatch(
        /^Cannot rotate: Data directory .* is in use by process \d+ .*stop it, rotate, then start it again\.\n$/,
      );
      expect(readFileSync(path.join(dataDir, 'admin-token'), 'utf8').trim()).toBe(first);
      expect(await statusWith(gateway.url, first)).toBe(200);
    } finally {
      await stop(gateway);
    }

    const rotated = runCli(['--rotate'], { DATA_DIR: dataDir });
    expect(rotated.status).toBe(0);
    expect(rotated.stdout).toMatch(TOKEN_LINE);
    expect(rotated.stderr).toContain(`Admin token rotated in ${dataDir}`);
    const second = rotated.stdout.trim();
    expect(second).not.toBe(first);
    const file = path.join(dataDir, 'admin-token');
    expect(readFileSync(file, 'utf8')).toBe(`${second}\n`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(existsSync(`${file}.new`)).toBe(false);
    expect(runCli([], { DATA_DIR: dataDir }).stdout).toBe(`${second}\n`);

    gateway = await startEntry(dataDir);
    try {
      expect(await statusWith(gateway.url, first)).toBe(401);
      expect(await statusWith(gateway.url, second)).toBe(200);
    } finally {
      await stop(gateway);
    }
  }, 120_000);

  it('with ADMIN_TOKEN set: prints that value, and refuses to rotate it', () => {
    const env = { DATA_DIR: path.join(scratch, 'unused'), ADMIN_TOKEN: 'chosen-admin-token-value' };
    expect(runCli([], env)).toEqual({
      status: 0,
      stdout: 'chosen-admin-token-value\n',
      stderr: '(the ADMIN_TOKEN variable)\n',
    });
    const rotate = runCli(['--rotate'], env);
    expect(rotate.status).toBe(1);
    expect(rotate.stdout).toBe('');
    expect(rotate.stderr).toContain('ADMIN_TOKEN is set: it is the admin token');
    expect(existsSync(env.DATA_DIR)).toBe(false);
  });

  describe('with MONGODB_URI', () => {
    let store: StoreProcess;
    let instances: RunningEntry[] = [];
    let uri: string;

    beforeAll(async () => {
      store = await startStoreProcess();
      uri = withDatabase(store.uri, 'admin-token-cli');
      const env = { MONGODB_URI: uri, RATE_LIMIT: '0' };
      instances = await Promise.all([
        startEntry(path.join(scratch, 'a'), env),
        startEntry(path.join(scratch, 'b'), env),
      ]);
    }, 120_000);

    afterAll(async () => {
      await Promise.all(instances.map(stop));
      await store?.stop();
    });

    it('prints the token the instances share, and a rotation counts on every instance at its next request, without a restart', async () => {
      const printed = runCli([], { MONGODB_URI: uri });
      expect(printed.status).toBe(0);
      expect(printed.stdout).toMatch(TOKEN_LINE);
      const first = printed.stdout.trim();
      for (const { url } of instances) expect(await statusWith(url, first)).toBe(200);

      const rotated = runCli(['--rotate'], { MONGODB_URI: uri });
      expect(rotated.status).toBe(0);
      expect(rotated.stdout).toMatch(TOKEN_LINE);
      expect(rotated.stderr).toBe(
        'Admin token rotated: every instance on this database refuses the old one from its next request.\n',
      );
      const second = rotated.stdout.trim();
      expect(second).not.toBe(first);
      for (const { url } of instances) {
        expect(await statusWith(url, first)).toBe(401);
        expect(await statusWith(url, second)).toBe(200);
      }
      expect(runCli([], { MONGODB_URI: uri }).stdout).toBe(`${second}\n`);
    });
  });
});
