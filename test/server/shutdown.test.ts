import type { RouteDefinition } from '../../src/rest/route-definition';
import { ok } from '../../src/rest/route-definition';
import { startGateway, type TestGateway } from '../helpers/gateway';

describe('closing the app', () => {
  let gw: TestGateway;
  let entered!: () => void;
  let release!: () => void;
  const inHandler = new Promise<void>((resolve) => {
    entered = resolve;
  });
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const slowRoute: RouteDefinition = {
    method: 'GET',
    path: '/test/slow',
    summary: 'waits until the test releases it',
    tag: 'Test',
    authenticated: false,
    response: {
      type: 'object',
      properties: {
        message: { type: 'string' },
        success: { type: 'boolean' },
        statusCode: { type: 'integer' },
      },
    },
    handler: async () => {
      entered();
      await released;
      return ok('finished', {});
    },
  };

  beforeAll(async () => {
    gw = await startGateway({ extraRoutes: [slowRoute] });
  });
  afterAll(async () => {
    release();
    await gw.stop();
  });

  it('stops accepting connections but lets the in-flight request finish', async () => {
    const inFlight = gw.request('GET', '/test/slow');
    await inHandler;
    const closing = gw.app.close();
    // Listening stops at once: a new connection is refused.
    await expect(fetch(`${gw.url}/healthz`)).rejects.toThrow();
    release();
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'finished', success: true, statusCode: 200 });
    await closing;
  });
});
