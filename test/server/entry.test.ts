import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { spawnEntry, startEntry } from '../helpers/entry';

describe('the entry (src/index.ts)', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'gw-entry-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('prints the URL and a generated admin token, serves, and exits 0 on SIGTERM', async () => {
    const run = await startEntry(dataDir);
    try {
      const token = /Admin token: +(\S+) \(generated now, kept in (.*)\)/.exec(run.output())?.[1];
      expect(token).toBeDefined();
      expect((await stat(path.join(dataDir, 'admin-token'))).mode & 0o777).toBe(0o600);
      expect((await fetch(`${run.url}/healthz`)).status).toBe(200);
      const viewer = await fetch(`${run.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ query: '{ viewer { role } }' }),
      });
      expect(await viewer.json()).toEqual({ data: { viewer: { role: 'ADMIN' } } });
    } finally {
      run.child.kill('SIGTERM');
    }
    expect(await run.exited).toBe(0);
  });

  it('reuses the kept admin token on the next start, printing where it is kept, and exits 0 on SIGINT', async () => {
    const run = await startEntry(dataDir);
    try {
      expect(run.output()).not.toContain('generated now');
      expect(run.output()).toContain(`Admin token:  kept in ${path.join(dataDir, 'admin-token')}`);
      // The banner comes last: nothing is printed after it.
      expect(run.output().trimEnd().split('\n').at(-1)).toMatch(/^ +Stop: /);
      expect((await fetch(`${run.url}/readyz`)).status).toBe(200);
    } finally {
      run.child.kill('SIGINT');
    }
    expect(await run.exited).toBe(0);
  });

  it('checks the port before anything is written: a port in use stops a first start with nothing created', async () => {
    const parent = await mkdtemp(path.join(os.tmpdir(), 'gw-entry-port-'));
    const fresh = path.join(parent, 'data');
    const busy = net.createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    try {
      const port = String((busy.address() as net.AddressInfo).port);
      const run = spawnEntry(fresh, { PORT: port, SEED_DEMO: 'true' });
      expect(await run.exited).toBe(1);
      expect(run.output()).toContain(
        `PORT ${port} on HOST 127.0.0.1 is in use by another process (another gateway?): stop it, or set PORT to a free port (EADDRINUSE)`,
      );
      expect(run.output()).not.toContain('demo company');
      await expect(stat(fresh)).rejects.toThrow(/ENOENT/);
    } finally {
      busy.close();
      await rm(parent, { recursive: true, force: true });
    }
  });

  it('prints its options and exits 0 on --help, without starting', async () => {
    const run = spawnEntry(dataDir, {}, ['--help']);
    expect(await run.exited).toBe(0);
    expect(run.output()).toMatch(/^Usage: npm start \[-- --help\]/);
    for (const name of ['PORT', 'MONGODB_URI', 'CORS_ORIGINS', 'METRICS_TOKEN'])
      expect(run.output()).toMatch(new RegExp(`^  ${name} +\\S`, 'm'));
    const wrong = spawnEntry(dataDir, {}, ['--port', '80']);
    expect(await wrong.exited).toBe(2);
    expect(wrong.output()).toMatch(/Unknown option '--port'[\s\S]*Usage: npm start/);
  });

  it('names MONGODB_URI and the likely cause when the database refuses, with the password masked', async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const run = spawnEntry(dataDir, {
      MONGODB_URI: `mongodb://ops:s3cret-pass@127.0.0.1:${port}/crm`,
    });
    expect(await run.exited).toBe(1);
    expect(run.output()).toContain(
      `Cannot use the database of MONGODB_URI (mongodb://ops:****@127.0.0.1:${port}/crm): nothing accepts connections at that host and port (ECONNREFUSED)`,
    );
    expect(run.output()).not.toContain('s3cret-pass');
    const typo = spawnEntry(dataDir, { MONGODB_URI: 'mongdb://ops:s3cret-pass@db/crm' });
    expect(await typo.exited).toBe(1);
    expect(typo.output()).toContain(
      'MONGODB_URI must start with mongodb:// or mongodb+srv://, got "mongdb://ops:****@db/crm"',
    );
    expect(typo.output()).not.toContain('s3cret-pass');
  });

  it('loads the full demo company on the start after one killed while loading it', async () => {
    const fresh = await mkdtemp(path.join(os.tmpdir(), 'gw-entry-seed-'));
    try {
      const first = spawnEntry(fresh, { SEED_DEMO: 'true' });
      await first.waitFor(/loading the demo company/);
      await new Promise((r) => setTimeout(r, 300));
      first.child.kill('SIGKILL');
      await first.exited;
      expect(first.output()).not.toContain('Demo company loaded');

      const run = await startEntry(fresh, { SEED_DEMO: 'true' });
      try {
        expect(run.output()).toMatch(/Demo company loaded: 3000 deals/);
        const admin = (await readFile(path.join(fresh, 'admin-token'), 'utf8')).trim();
        const get = async (route: string): Promise<any> =>
          (
            await fetch(`${run.url}${route}`, { headers: { authorization: `Bearer ${admin}` } })
          ).json();
        expect((await get('/teams')).teams.map((t: { name: string }) => t.name).sort()).toEqual([
          'Benelux',
          'DACH',
          'Nordics',
        ]);
        expect((await get('/teams/members?limit=100')).members).toHaveLength(12);
      } finally {
        run.child.kill('SIGTERM');
      }
      expect(await run.exited).toBe(0);
    } finally {
      await rm(fresh, { recursive: true, force: true });
    }
  });
});
