import net from 'node:net';
import type { RouteDefinition } from '../../src/rest/route-definition';
import { startGateway, type TestGateway } from '../helpers/gateway';
import { EVERY_ROLE } from '../../src/rest/route-roles';

const ADMIN_TOKEN = 'admin-secret-for-log-test-0123456789';
const JWT_SECRET = 'jwt-secret-for-log-test-0123456789abcdef';

// Fault injection: a route slower than the time budget.
const SLOW: RouteDefinition = {
  method: 'GET',
  path: '/test/slow',
  summary: 'slow',
  tag: 'Operations',
  authenticated: true,
  roles: EVERY_ROLE,
  response: {},
  handler: () =>
    new Promise((resolve) =>
      setTimeout(() => resolve({ message: 'late', success: true, statusCode: 200 }), 1500),
    ),
};

// The same, for a request whose body was read before the handler ran (Node has destroyed the
// request stream by then; the time budget must still apply).
const SLOW_POST: RouteDefinition = { ...SLOW, method: 'POST', path: '/test/slow-post' };

describe('security headers, request logs and the time budget', () => {
  let gw: TestGateway;
  const lines: string[] = [];
  beforeAll(async () => {
    gw = await startGateway({
      env: { LOG_LEVEL: 'info', ADMIN_TOKEN, JWT_SECRET, REQUEST_TIMEOUT_MS: '300' },
      extraRoutes: [SLOW, SLOW_POST],
      logStream: { write: (line: string) => lines.push(line) },
    });
  });
  afterAll(async () => {
    await gw.stop();
  });

  it('puts the security headers on JSON answers, errors and the explorer page (keeping its CSP)', async () => {
    for (const res of [
      await gw.request('GET', '/teams'),
      await gw.request('GET', '/teams', { token: null }),
      await gw.graphql('{ viewer { role } }').then(() => gw.request('GET', '/nope')),
    ]) {
      expect(res.headers).toMatchObject({
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
        'x-frame-options': 'DENY',
        'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
        'cache-control': 'no-store',
      });
      expect(res.headers['x-powered-by']).toBeUndefined();
    }
    const page = await gw.request('GET', '/graphiql', {
      token: null,
      headers: { accept: 'text/html' },
    });
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['x-content-type-options']).toBe('nosniff');
  });

  it('answers a path that does not percent-decode with the envelope and the same headers (fastify refuses it before any hook)', async () => {
    for (const path of ['/pipelines/%E0%A4%A', '/teams/%zz', '/%']) {
      const res = await gw.request('GET', path);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        success: false,
        statusCode: 400,
        message: `Bad request: '${path}' is not a valid url component`,
      });
      expect(res.headers).toMatchObject({
        'content-type': 'application/json; charset=utf-8',
        'x-content-type-options': 'nosniff',
        'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
        'cache-control': 'no-store',
      });
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('logs one structured line per request with the request id and subject, and never a credential', async () => {
    const member = await gw.request('POST', '/auth/tokens', {
      body: { member_id: 'nobody', expires_in: 3600 },
    });
    expect(member.status).toBe(404);
    const res = await gw.request('GET', '/teams', { query: { token: 'query-secret-value' } });
    await gw.request('GET', '/teams', { token: 'forged.jwt.value' });
    await gw.graphql('mutation { issueToken(memberId: "x") { token } }');
    await new Promise((r) => setTimeout(r, 50));
    const records = lines.map((line) => JSON.parse(line));
    const entry = records.find((r) => r.requestId === res.headers['x-request-id']);
    expect(entry).toMatchObject({
      msg: 'request completed',
      method: 'GET',
      route: '/teams',
      status: expect.any(Number),
      subject: 'admin-token',
    });
    expect(typeof entry.durationMs).toBe('number');
    const text = lines.join('\n');
    for (const secret of [ADMIN_TOKEN, JWT_SECRET, 'forged.jwt.value', 'query-secret-value'])
      expect(text).not.toContain(secret);
    expect(text).not.toMatch(/eyJ[\w-]+\.[\w-]+\./); // no JWT of any kind
  });

  it('answers 503 with Retry-After when a request outlives REQUEST_TIMEOUT_MS', async () => {
    const res = await gw.request('GET', '/test/slow');
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.body).toMatchObject({
      success: false,
      statusCode: 503,
      message: 'The request did not complete within 300 ms; try again shortly',
    });
    await new Promise((r) => setTimeout(r, 1400)); // the late answer is dropped without crashing anything
    expect((await gw.request('GET', '/healthz')).status).toBe(200);
  });

  it('applies the budget to a request whose body was read, and not to a client that went away', async () => {
    const posted = await gw.request('POST', '/test/slow-post', { body: { name: 'x' } });
    expect(posted.status).toBe(503);
    const requestId = 'client-went-away-1';
    await new Promise<void>((resolve) => {
      const socket = net.connect(gw.port, '127.0.0.1', () => {
        socket.write(
          `GET /test/slow HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\nX-Request-Id: ${requestId}\r\n\r\n`,
        );
        setTimeout(() => socket.destroy(), 50);
      });
      socket.on('close', () => resolve());
    });
    await new Promise((r) => setTimeout(r, 600)); // past the budget: the sweep has seen it
    const records = lines.map((line) => JSON.parse(line));
    expect(
      records.filter((r) => r.msg === 'request timed out' && r.requestId === requestId),
    ).toEqual([]);
    expect(
      records.filter(
        (r) => r.msg === 'request timed out' && r.requestId === posted.headers['x-request-id'],
      ),
    ).toHaveLength(1);
  });
});
