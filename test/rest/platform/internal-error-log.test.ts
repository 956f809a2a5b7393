import mongoose from 'mongoose';
import pino from 'pino';
import { loadConfig } from '../../../src/config';
import { buildApp } from '../../../src/server/build-app';
import { TEST_ROUTES } from './test-routes';

describe('an unexpected REST error', () => {
  it('is logged in full with the request id while the client gets only the generic message', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'error' }, { write: (line: string) => lines.push(line) });
    const adminToken = 'a'.repeat(32);
    // No database needed: the admin token is checked without one and the route fails on its own.
    const app = await buildApp({
      connection: mongoose.connection,
      config: loadConfig({ LOG_LEVEL: 'error' }),
      secrets: { jwtSecret: new TextEncoder().encode('k'.repeat(32)), adminToken, generatedAdminToken: null },
      extraRoutes: TEST_ROUTES,
      logger,
    });
    try {
      const address = await app.listen({ port: 0, host: '127.0.0.1' });
      const res = await fetch(`${address}/test/fail`, { headers: { authorization: `Bearer ${adminToken}`, 'x-request-id': 'log-me' } });
      expect(res.status).toBe(500);
      expect(await res.json()).toEqual({ message: 'Internal server error (request id log-me)', success: false, statusCode: 500 });
      const logged = lines.map((line) => JSON.parse(line)).find((entry) => entry.requestId === 'log-me');
      expect(logged).toMatchObject({ level: 50, msg: 'unexpected error' });
      expect(logged.err.message).toContain('secret-host');
      expect(logged.err.stack).toContain('test-routes');
    } finally {
      await app.close();
    }
  });
});
