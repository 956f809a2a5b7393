import { itEmbeddedOnly, STOPS_THE_DATABASE } from '../helpers/database-mode';
import { startGateway, type TestGateway } from '../helpers/gateway';

describe('health and readiness', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(async () => {
    await gw.stop();
  });

  it('answers /healthz without a token', async () => {
    const res = await gw.request('GET', '/healthz', { token: null });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('answers /readyz when the database answers a ping', async () => {
    const commands: string[] = [];
    const stop = gw.onCommand((name) => commands.push(name));
    const res = await gw.request('GET', '/readyz', { token: null });
    stop();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
    expect(commands).toContain('ping');
  });

  it('echoes a sane x-request-id and replaces an unsafe one', async () => {
    const echoed = await gw.request('GET', '/healthz', { headers: { 'x-request-id': 'abc-123' } });
    expect(echoed.headers['x-request-id']).toBe('abc-123');
    const replaced = await gw.request('GET', '/healthz', {
      headers: { 'x-request-id': 'bad id\twith spaces' },
    });
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  itEmbeddedOnly(
    'answers /readyz with 503 in the error envelope once the database is gone',
    STOPS_THE_DATABASE,
    async () => {
      await gw.server!.stop();
      const res = await gw.request('GET', '/readyz', { token: null });
      expect(res.status).toBe(503);
      expect(res.body).toEqual({
        message: 'The database is unreachable; try again shortly',
        success: false,
        statusCode: 503,
      });
      expect(res.headers['retry-after']).toBe('1');
      const health = await gw.request('GET', '/healthz', { token: null });
      expect(health.status).toBe(200);
    },
  );
});
