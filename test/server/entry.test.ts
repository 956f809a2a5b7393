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

  it('tells where the admin token is even when the start that generated it failed', async () => {
    const fresh = await mkdtemp(path.join(os.tmpdir(), 'gw-entry-token-'));
    const busy = net.createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    try {
      const port = String((busy.address() as net.AddressInfo).port);
      await expect(startEntry(fresh, { PORT: port })).rejects.toThrow(
        /EADDRINUSE|address already in use/,
      );
      const run = await startEntry(fresh);
      try {
        const kept = (await readFile(path.join(fresh, 'admin-token'), 'utf8')).trim();
        expect(run.output()).toContain(`Admin token:  kept in ${path.join(fresh, 'admin-token')}`);
        const viewer = await fetch(`${run.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${kept}` },
          body: JSON.stringify({ query: '{ viewer { role } }' }),
        });
        expect(await viewer.json()).toEqual({ data: { viewer: { role: 'ADMIN' } } });
      } finally {
        run.child.kill('SIGTERM');
      }
      expect(await run.exited).toBe(0);
    } finally {
      busy.close();
      await rm(fresh, { recursive: true, force: true });
    }
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
