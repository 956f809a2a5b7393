import { startGateway } from '../../helpers/gateway';
import { TEST_ROUTES } from './test-routes';

describe('an unexpected REST error', () => {
  it('is logged in full with the request id while the client gets only the generic message', async () => {
    const lines: string[] = [];
    const gw = await startGateway({
      env: { LOG_LEVEL: 'error' },
      extraRoutes: TEST_ROUTES,
      logStream: { write: (line: string) => lines.push(line) },
    });
    try {
      const res = await fetch(`${gw.url}/test/fail`, {
        headers: { authorization: `Bearer ${gw.adminToken}`, 'x-request-id': 'log-me' },
      });
      expect(res.status).toBe(500);
      expect(await res.json()).toEqual({
        message: 'Internal server error (request id log-me)',
        success: false,
        statusCode: 500,
      });
      const logged = lines
        .map((line) => JSON.parse(line))
        .find((entry) => entry.requestId === 'log-me');
      expect(logged).toMatchObject({ level: 50, msg: 'unexpected error' });
      expect(logged.err.message).toContain('secret-host');
      expect(logged.err.stack).toContain('test-routes');
    } finally {
      await gw.stop();
    }
  });
});
