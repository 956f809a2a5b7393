import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startEntry } from '../helpers/entry';

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
      const token = /Generated admin token \(kept in .*admin-token\): (\S+)/.exec(run.output())?.[1];
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

  it('reuses the kept admin token on the next start without printing it, and exits 0 on SIGINT', async () => {
    const run = await startEntry(dataDir);
    try {
      expect(run.output()).not.toContain('Generated admin token');
      expect((await fetch(`${run.url}/readyz`)).status).toBe(200);
    } finally {
      run.child.kill('SIGINT');
    }
    expect(await run.exited).toBe(0);
  });
});
