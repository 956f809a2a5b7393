import { MAX_URL_BYTES } from '../../src/security/url-limit';
import { startGateway, type TestGateway } from '../helpers/gateway';
import { rawExchange } from '../helpers/raw-http';

// What no route answers, whatever its length: the envelope, counted by the rate limit, one log line.
describe('requests no route answers', () => {
  let gw: TestGateway;
  const lines: string[] = [];
  beforeAll(async () => {
    gw = await startGateway({
      env: { LOG_LEVEL: 'info' },
      logStream: { write: (line: string) => lines.push(line) },
    });
  });
  afterAll(async () => {
    await gw.stop();
  });

  /** The log lines written while `send` ran. */
  async function logged<T>(send: () => Promise<T>): Promise<{ answer: T; records: any[] }> {
    lines.length = 0;
    const answer = await send();
    // The request line is written once the answer has gone.
    await new Promise((r) => setTimeout(r, 50));
    return { answer, records: lines.map((line) => JSON.parse(line)) };
  }

  it('answers a path parameter over 100 characters like any other (404 here), counted and logged once, without the URL', async () => {
    const id = 'a'.repeat(101);
    const { answer, records } = await logged(() =>
      gw.request('GET', `/teams/members/${id}`, { token: null }),
    );
    expect(answer.status).toBe(401); // the route answers: no token
    expect(answer.headers.ratelimit).toMatch(/^"default";r=\d+;t=\d+$/);
    expect(records).toEqual([
      expect.objectContaining({
        msg: 'request completed',
        route: '/teams/members/:member_id',
        status: 401,
      }),
    ]);
    expect(lines.join('')).not.toContain(id);
    const found = await gw.request('GET', `/teams/members/${id}`);
    expect(found).toMatchObject({
      status: 404,
      body: { message: `Member ${id} not found`, success: false, statusCode: 404 },
    });
  });

  it('answers 404 to an unknown path of any length up to the URL limit', async () => {
    for (const length of [10, 101, 4000, MAX_URL_BYTES - 1]) {
      const path = `/nothing/${'b'.repeat(length - '/nothing/'.length)}`;
      const { answer, records } = await logged(() => gw.request('GET', path));
      expect([length, answer.status, answer.body.statusCode, answer.body.success]).toEqual([
        length,
        404,
        404,
        false,
      ]);
      expect(answer.headers.ratelimit).toBeDefined();
      expect(records.map((r) => [r.route, r.status])).toEqual([['unmatched', 404]]);
    }
  });

  it(`answers 414 to a URL over ${MAX_URL_BYTES} bytes, counted and logged once, without the URL`, async () => {
    for (const path of [
      `/nothing/${'c'.repeat(MAX_URL_BYTES)}`,
      `/teams/members/${'d'.repeat(MAX_URL_BYTES)}`,
      `/teams?x=${'e'.repeat(MAX_URL_BYTES)}`,
    ]) {
      const { answer, records } = await logged(() => gw.request('GET', path));
      expect(answer).toMatchObject({
        status: 414,
        body: {
          message: `The URL is longer than the limit of ${MAX_URL_BYTES} bytes`,
          success: false,
          statusCode: 414,
        },
      });
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
      expect(answer.headers.ratelimit).toBeDefined();
      expect(records.map((r) => r.status)).toEqual([414]);
      expect(lines.join('')).not.toMatch(/c{100}|d{100}|e{100}/);
    }
  });

  it('answers 431 to a head over what Node accepts, before any route', async () => {
    const [answer] = await rawExchange(
      gw.port,
      `GET /nothing/${'f'.repeat(17_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      1,
    );
    expect(answer).toMatchObject({
      status: 431,
      body: { message: 'The request headers are too large', success: false, statusCode: 431 },
    });
  });
});

it('counts what no route answers against the rate limit', async () => {
  const gw = await startGateway({ env: { RATE_LIMIT: '3' } });
  try {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push(
        (await gw.request('GET', `/nothing/${'g'.repeat(200)}`, { token: null })).status,
      );
    expect(statuses).toEqual([404, 404, 404, 429]);
  } finally {
    await gw.stop();
  }
});
