import { startGateway, type TestGateway } from '../helpers/gateway';

const APP = 'https://app.example.com';
const OTHER = 'https://evil.example.net';

/** A browser's preflight for a POST with a bearer token and a JSON body. */
function preflight(origin: string, method = 'POST'): Record<string, string> {
  return {
    origin,
    'access-control-request-method': method,
    'access-control-request-headers': 'authorization,content-type',
  };
}

describe('CORS (CORS_ORIGINS), over HTTP', () => {
  describe('with two origins allowed', () => {
    let gw: TestGateway;
    beforeAll(async () => {
      gw = await startGateway({ env: { CORS_ORIGINS: `${APP}, http://localhost:5173` } });
    });
    afterAll(async () => {
      await gw.stop();
    });

    it.each(['/graphql', '/teams', '/teams/members'])(
      'answers the preflight of %s for an allowed origin: 204, the origin, Authorization and Content-Type, no credentials',
      async (path) => {
        const answer = await gw.request('OPTIONS', path, { token: null, headers: preflight(APP) });
        expect(answer.status).toBe(204);
        expect(answer.headers['access-control-allow-origin']).toBe(APP);
        expect(answer.headers['access-control-allow-methods']).toBe(
          'GET, HEAD, POST, PUT, PATCH, DELETE, DEL',
        );
        expect(answer.headers['access-control-allow-headers']).toBe('Authorization, Content-Type');
        expect(answer.headers['access-control-allow-credentials']).toBeUndefined();
        expect(answer.headers['access-control-max-age']).toBe('600');
        expect(answer.headers.vary).toMatch(/Origin/);
        // The answer is still one of the gateway's: request id and security headers.
        expect(answer.headers['x-request-id']).toBeDefined();
        expect(answer.headers['x-content-type-options']).toBe('nosniff');
      },
    );

    it('allows the contract DEL method in a preflight', async () => {
      const answer = await gw.request('OPTIONS', '/teams/members', {
        token: null,
        headers: preflight('http://localhost:5173', 'DEL'),
      });
      expect(answer.status).toBe(204);
      expect(answer.headers['access-control-allow-origin']).toBe('http://localhost:5173');
    });

    it('gives no Access-Control-Allow-Origin to another origin, on the preflight and on the request', async () => {
      const pre = await gw.request('OPTIONS', '/graphql', {
        token: null,
        headers: preflight(OTHER),
      });
      expect(pre.headers['access-control-allow-origin']).toBeUndefined();
      const get = await gw.request('GET', '/teams', { headers: { origin: OTHER } });
      expect(get.status).toBe(200);
      expect(get.headers['access-control-allow-origin']).toBeUndefined();
    });

    it('allows the actual request and its errors, exposing the request id and rate-limit fields', async () => {
      const ok = await gw.request('GET', '/teams', { headers: { origin: APP } });
      expect(ok.status).toBe(200);
      expect(ok.headers['access-control-allow-origin']).toBe(APP);
      expect(ok.headers['access-control-expose-headers']).toBe(
        'x-request-id, ratelimit, ratelimit-policy, retry-after',
      );
      const graphql = await gw.request('POST', '/graphql', {
        headers: { origin: APP },
        body: { query: '{ viewer { role } }' },
      });
      expect(graphql.body).toEqual({ data: { viewer: { role: 'ADMIN' } } });
      expect(graphql.headers['access-control-allow-origin']).toBe(APP);
      const refused = await gw.request('GET', '/teams', { token: null, headers: { origin: APP } });
      expect(refused.status).toBe(401);
      expect(refused.headers['access-control-allow-origin']).toBe(APP);
    });
  });

  describe('with CORS_ORIGINS unset (the default)', () => {
    let gw: TestGateway;
    beforeAll(async () => {
      gw = await startGateway();
    });
    afterAll(async () => {
      await gw.stop();
    });

    it('allows no origin: the preflight is refused and no answer carries CORS headers', async () => {
      const pre = await gw.request('OPTIONS', '/graphql', { token: null, headers: preflight(APP) });
      expect(pre.status).toBe(405);
      expect(pre.headers['access-control-allow-origin']).toBeUndefined();
      const get = await gw.request('GET', '/teams', { headers: { origin: APP } });
      expect(get.status).toBe(200);
      expect(Object.keys(get.headers).filter((name) => name.startsWith('access-control-'))).toEqual(
        [],
      );
    });
  });

  it('refuses CORS_ORIGINS values that are not origins, naming the variable', async () => {
    for (const bad of ['*', 'https://app.example.com/', 'app.example.com', 'https://a.com/path'])
      await expect(startGateway({ env: { CORS_ORIGINS: bad } })).rejects.toThrow(
        new RegExp(
          `CORS_ORIGINS must list origins as browsers send them.*got "${bad.replace(/[.*/]/g, '\\$&')}"`,
        ),
      );
  });
});
