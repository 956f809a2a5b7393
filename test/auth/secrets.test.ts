import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Connection } from 'mongoose';
import { loadSecrets } from '../../src/auth/secrets';
import { loadConfig } from '../../src/config';

// Without MONGODB_URI the connection is never touched.
const noConnection = {} as Connection;

describe('loadSecrets on the embedded database', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gw-secrets-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('generates the admin token and JWT key once, keeps them with mode 0600, and reuses them', async () => {
    const config = loadConfig({ DATA_DIR: dir });
    const first = await loadSecrets(config, noConnection);
    expect(first.generatedAdminToken).toBe(first.adminToken);
    expect(first.adminToken.length).toBeGreaterThanOrEqual(32);
    expect((await readFile(path.join(dir, 'admin-token'), 'utf8')).trim()).toBe(first.adminToken);
    expect((await stat(path.join(dir, 'admin-token'))).mode & 0o777).toBe(0o600);
    expect((await stat(path.join(dir, 'jwt-secret'))).mode & 0o777).toBe(0o600);

    const second = await loadSecrets(config, noConnection);
    expect(second.generatedAdminToken).toBeNull();
    expect(second.adminToken).toBe(first.adminToken);
    expect(Buffer.from(second.jwtSecret).equals(Buffer.from(first.jwtSecret))).toBe(true);
  });

  it('prefers the environment and writes nothing then', async () => {
    const config = loadConfig({
      DATA_DIR: dir,
      ADMIN_TOKEN: 'x'.repeat(20),
      JWT_SECRET: 'y'.repeat(32),
    });
    const secrets = await loadSecrets(config, noConnection);
    expect(secrets).toMatchObject({ adminToken: 'x'.repeat(20), generatedAdminToken: null });
    expect(Buffer.from(secrets.jwtSecret).toString()).toBe('y'.repeat(32));
    await expect(stat(path.join(dir, 'admin-token'))).rejects.toThrow(/ENOENT/);
  });
});

describe('loadSecrets with MONGODB_URI', () => {
  it('keeps generated secrets in the database so every instance agrees', async () => {
    const { EmbeddedMongoServer } = await import('../../src/store/server');
    const mongoose = (await import('mongoose')).default;
    const server = await EmbeddedMongoServer.start();
    const a = mongoose.createConnection(server.uri);
    const b = mongoose.createConnection(server.uri);
    try {
      await Promise.all([a.asPromise(), b.asPromise()]);
      const config = loadConfig({
        MONGODB_URI: server.uri,
        DATA_DIR: '/nonexistent/never-written',
      });
      const [first, second] = await Promise.all([loadSecrets(config, a), loadSecrets(config, b)]);
      expect(second.adminToken).toBe(first.adminToken);
      expect(Buffer.from(second.jwtSecret).equals(Buffer.from(first.jwtSecret))).toBe(true);
      // Exactly one of the two instances generated (and would print) the admin token.
      expect(
        [first.generatedAdminToken, second.generatedAdminToken].filter((t) => t !== null),
      ).toEqual([first.adminToken]);
      const third = await loadSecrets(config, a);
      expect(third).toMatchObject({ adminToken: first.adminToken, generatedAdminToken: null });
    } finally {
      await Promise.all([a.close(), b.close()]);
      await server.stop();
    }
  });
});
