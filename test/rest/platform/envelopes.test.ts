import { startGateway, type TestGateway } from '../../helpers/gateway';
import { TEST_ROUTES } from './test-routes';

describe('REST error envelopes and input plumbing', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({ extraRoutes: TEST_ROUTES, env: { BODY_LIMIT: '2048' } });
  });
  afterAll(async () => {
    await gw.stop();
  });

  it('answers 400 for malformed JSON', async () => {
    const res = await gw.request('POST', '/test/echo', {
      body: '{"name": "x",',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, statusCode: 400 });
    expect(res.body.message).toMatch(/^Malformed JSON in the request body/);
  });

  it('answers 415 for a body that is not JSON', async () => {
    const res = await gw.request('POST', '/test/echo', {
      body: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(415);
    expect(res.body).toEqual({
      message:
        'Request body must be JSON (Content-Type: application/json), got "application/x-www-form-urlencoded"',
      success: false,
      statusCode: 415,
    });
  });

  it('answers 413 over the body limit', async () => {
    const res = await gw.request('POST', '/test/echo', { body: { name: 'x'.repeat(3000) } });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      message: 'Request body is larger than the limit of 2048 bytes',
      success: false,
      statusCode: 413,
    });
  });

  it('answers 405 with Allow for a known path and another method', async () => {
    const res = await gw.request('DELETE', '/healthz');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD');
    expect(res.body).toEqual({
      message: 'Method DELETE is not allowed on /healthz; allowed: GET, HEAD',
      success: false,
      statusCode: 405,
    });
    const withParam = await gw.request('GET', '/test/echo/abc');
    expect(withParam.status).toBe(405);
    expect(withParam.headers.allow).toBe('POST');
  });

  it('answers 404 in the envelope for an unknown path', async () => {
    const res = await gw.request('GET', '/no/such/thing?x=1');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      message: 'No route GET /no/such/thing',
      success: false,
      statusCode: 404,
    });
    expect(res.headers['x-request-id']).toBeDefined();
  });

  it('answers 500 with a generic message and the request id, leaking nothing', async () => {
    const res = await gw.request('GET', '/test/fail', {
      headers: { 'x-request-id': 'req-500-test' },
    });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      message: 'Internal server error (request id req-500-test)',
      success: false,
      statusCode: 500,
    });
    expect(JSON.stringify(res)).not.toMatch(/secret-host|E11000|stack|\.ts/);
  });

  it('answers 503 when the database is unreachable, in the route’s error shape', async () => {
    const res = await gw.request('GET', '/test/unreachable');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      metrics: [],
      status: {
        message: 'The database is unreachable; try again shortly',
        success: false,
        statusCode: 503,
      },
    });
    expect(JSON.stringify(res.body)).not.toContain('10.0.0.5');
  });

  it('maps an escaped duplicate-key error to 409', async () => {
    const res = await gw.request('GET', '/test/duplicate');
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      message: 'A record with the same unique value already exists',
      success: false,
      statusCode: 409,
    });
  });

  it('requires a token on authenticated routes', async () => {
    const res = await gw.request('GET', '/test/echo', { token: null });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
  });

  it('rejects unknown fields and $ keys with 400 naming them, and changes nothing', async () => {
    const unknown = await gw.request('POST', '/test/echo', { body: { name: 'a', colour: 'red' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toEqual([
      {
        field: 'colour',
        message: expect.stringMatching(/^unknown field; expected one of: .*name/),
      },
    ]);
    const dollar = await gw.request('POST', '/test/echo', {
      body: { memberOf: { team_id: { $gt: '' } } },
    });
    expect(dollar.status).toBe(400);
    expect(dollar.body.errors).toEqual([
      { field: 'memberOf.team_id.$gt', message: 'keys starting with "$" are not allowed' },
    ]);
    const query = await gw.request('GET', '/test/echo', { query: { $where: '1' } });
    expect(query.status).toBe(400);
    expect(query.body.errors[0].field).toBe('$where');
  });

  it('rejects __proto__ in a JSON body without polluting prototypes', async () => {
    const res = await gw.request('POST', '/test/echo', {
      body: '{"name":"a","__proto__":{"polluted":"yes"}}',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      { field: '__proto__', message: 'the key "__proto__" is not allowed' },
    ]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const viaQuery = await gw.request(
      'GET',
      '/test/echo?__proto__[polluted]=yes&constructor[prototype]=x',
    );
    expect(viaQuery.status).toBe(400);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('names nested paths and array elements', async () => {
    const res = await gw.request('POST', '/test/echo', {
      body: { memberOf: { team_id: 7 }, targets: [1, 2, 'x'] },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'memberOf.team_id',
      'targets',
    ]);
  });

  it('coerces query strings, repeats and lists; query wins over the body on GET', async () => {
    const res = await gw.request('GET', '/test/echo', {
      query: { limit: '5', flag: 'true', tags: ['a,b', 'c'], 'memberOf[team_id]': 'team-1' },
      body: JSON.stringify({ limit: 50, name: 'from-body' }),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(200);
    expect(res.body.input).toEqual({
      limit: 5,
      flag: true,
      tags: ['a', 'b', 'c'],
      memberOf: { team_id: 'team-1' },
      name: 'from-body',
    });
    const bad = await gw.request('GET', '/test/echo', { query: { limit: 'lots' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]).toEqual({
      field: 'limit',
      message: expect.stringContaining('got string "lots"'),
    });
  });

  it('lets path parameters win and reads bodies on DELETE', async () => {
    const post = await gw.request('POST', '/test/echo/path-id', {
      body: { id: 'body-id', name: 'n' },
    });
    expect(post.body.input).toMatchObject({ id: 'path-id', name: 'n' });
    const del = await gw.request('DELETE', '/test/echo', { body: { id: 'm-1' } });
    expect(del.status).toBe(200);
    expect(del.body.input).toMatchObject({ id: 'm-1' });
  });
});
