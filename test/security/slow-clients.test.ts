import net from 'node:net';
import { loadConfig } from '../../src/config';
import type { RouteDefinition } from '../../src/rest/route-definition';
import { nodeRequestTimeoutMs } from '../../src/server/http-edge';
import { startGateway, type TestGateway } from '../helpers/gateway';
import { EVERY_ROLE } from '../../src/rest/route-roles';

const ADMIN_TOKEN = 'admin-secret-for-slow-clients-0123456789';

// Fault injection: a handler slower than the time budget, once its body has arrived.
const SLOW_POST: RouteDefinition = {
  method: 'POST',
  path: '/test/slow-post',
  summary: 'slow',
  tag: 'Operations',
  authenticated: true,
  roles: EVERY_ROLE,
  response: {},
  handler: () =>
    new Promise((resolve) =>
      setTimeout(() => resolve({ message: 'late', success: true, statusCode: 200 }), 2500),
    ),
};

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: any;
}

/**
 * One raw connection that records what comes back and when the server closes it. Unlike
 * rawExchange it never ends the connection itself and takes a reset as a close (a server that
 * closes while the client still writes may reset).
 */
function connect(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  socket.setNoDelay(true);
  const openedAt = Date.now();
  let received = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
  });
  socket.on('error', () => undefined);
  const closed = new Promise<number>((resolve) =>
    socket.on('close', () => resolve(Date.now() - openedAt)),
  );
  let writing = true;
  void closed.then(() => (writing = false));
  return {
    socket,
    closed,
    openedAt,
    write(text: string) {
      if (writing && !socket.destroyed) socket.write(text);
    },
    /** Writes `text` one character per `gapMs`, until it is all sent or the connection closes. */
    async trickle(text: string, gapMs: number) {
      for (const ch of text) {
        if (!writing) return;
        this.write(ch);
        await new Promise((r) => setTimeout(r, gapMs));
      }
    },
    /** The answers received so far (Content-Length framed). */
    answers(): Answer[] {
      const out: Answer[] = [];
      let rest = received;
      for (;;) {
        const headEnd = rest.indexOf('\r\n\r\n');
        if (headEnd === -1) return out;
        const [statusLine, ...lines] = rest.subarray(0, headEnd).toString('latin1').split('\r\n');
        const headers: Record<string, string> = {};
        for (const line of lines)
          headers[line.slice(0, line.indexOf(':')).trim().toLowerCase()] = line
            .slice(line.indexOf(':') + 1)
            .trim();
        const length = Number(headers['content-length'] ?? 0);
        if (rest.length < headEnd + 4 + length) return out;
        const text = rest.subarray(headEnd + 4, headEnd + 4 + length).toString('utf8');
        out.push({
          status: Number(statusLine.split(' ')[1]),
          headers,
          body: text === '' ? '' : JSON.parse(text),
        });
        rest = rest.subarray(headEnd + 4 + length);
      }
    },
  };
}

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'cache-control': 'no-store',
};

function postHead(path: string, length: number): string {
  return (
    `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`
  );
}

describe('slow clients (REQUEST_TIMEOUT_MS, HEADERS_TIMEOUT_MS and KEEP_ALIVE_TIMEOUT_MS at 1 s)', () => {
  let gw: TestGateway;
  const lines: string[] = [];
  beforeAll(async () => {
    gw = await startGateway({
      env: {
        LOG_LEVEL: 'info',
        ADMIN_TOKEN,
        REQUEST_TIMEOUT_MS: '1000',
        HEADERS_TIMEOUT_MS: '1000',
        KEEP_ALIVE_TIMEOUT_MS: '1000',
      },
      extraRoutes: [SLOW_POST],
      logStream: { write: (line: string) => lines.push(line) },
    });
  });
  afterAll(async () => {
    await gw.stop();
  });

  it('answers 408 in the envelope to a body sent a byte a second, and closes the connection', async () => {
    const body = JSON.stringify({ team_id: 'slowpoke', name: 'Slow' });
    const conn = connect(gw.port);
    conn.write(postHead('/teams', body.length));
    void conn.trickle(body, 1000);
    const closedAfter = await conn.closed;
    expect(closedAfter).toBeGreaterThanOrEqual(1000);
    expect(closedAfter).toBeLessThan(2500);
    expect(conn.answers()).toEqual([
      {
        status: 408,
        headers: expect.objectContaining({
          ...SECURITY_HEADERS,
          connection: 'close',
          'x-request-id': expect.any(String),
        }),
        body: {
          message: 'The request body was not received within 1000 ms',
          success: false,
          statusCode: 408,
        },
      },
    ]);
    expect((await gw.request('GET', '/teams/slowpoke')).status).toBe(404);
    const records = lines.map((line) => JSON.parse(line));
    expect(records.filter((r) => r.level >= 50)).toEqual([]); // the abandoned body parse logs no error
  });

  it('answers 408 as a GraphQL error on /graphql', async () => {
    const body = JSON.stringify({ query: '{ viewer { role } }' });
    const conn = connect(gw.port);
    conn.write(postHead('/graphql', body.length));
    void conn.trickle(body, 1000);
    expect(await conn.closed).toBeLessThan(2500);
    expect(conn.answers()).toEqual([
      expect.objectContaining({
        status: 408,
        body: {
          errors: [
            {
              message: 'The request body was not received within 1000 ms',
              extensions: { code: 'REQUEST_TIMEOUT' },
            },
          ],
        },
      }),
    ]);
  });

  it('keeps the 503, and the connection, for a body that arrived and a handler that is slow', async () => {
    const conn = connect(gw.port);
    conn.write(postHead('/test/slow-post', 2) + '{}');
    await new Promise((r) => setTimeout(r, 1800));
    // A write that carries on: its outcome is not known, and nothing invites a blind retry.
    expect(conn.answers()).toEqual([
      expect.objectContaining({
        status: 503,
        headers: expect.objectContaining({ connection: 'keep-alive' }),
        body: {
          message:
            'The write did not complete within 1000 ms and carries on: its outcome is not known yet; check whether it took effect before sending it again (sent with an Idempotency-Key header, a retry with the same key would tell)',
          success: false,
          statusCode: 503,
        },
      }),
    ]);
    expect(conn.answers()[0]!.headers['retry-after']).toBeUndefined();
    conn.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((r) => setTimeout(r, 300));
    expect(conn.answers().map((a) => a.status)).toEqual([503, 200]);
    conn.socket.destroy();
  });

  it('closes an idle kept-alive connection after KEEP_ALIVE_TIMEOUT_MS', async () => {
    const conn = connect(gw.port);
    conn.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((r) => setTimeout(r, 200));
    expect(
      conn.answers().map((a) => [a.status, a.headers.connection, a.headers['keep-alive']]),
    ).toEqual([[200, 'keep-alive', 'timeout=1']]);
    const closedAfter = await conn.closed;
    expect(closedAfter).toBeGreaterThanOrEqual(1000);
    expect(closedAfter).toBeLessThan(2500);
  });

  it('keeps the same limits on a connection that sent DEL (closed when idle, 408 for headers that never end, 408 for a late body)', async () => {
    const del = `DEL /teams/members?member_id=nobody HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\n\r\n`;
    const idle = connect(gw.port);
    idle.write(del);
    await new Promise((r) => setTimeout(r, 200));
    expect(idle.answers().map((a) => [a.status, a.headers['keep-alive']])).toEqual([
      [404, 'timeout=1'],
    ]);
    const idleClosedAfter = await idle.closed;
    expect(idleClosedAfter).toBeGreaterThanOrEqual(1000);
    expect(idleClosedAfter).toBeLessThan(3500);

    const slowHead = connect(gw.port);
    slowHead.write(del + 'GET /healthz HTTP/1.1\r\nHost: x\r\n');
    void slowHead.trickle('X-Slow: ' + 'a'.repeat(60), 500);
    const slowClosedAfter = await slowHead.closed;
    expect(slowClosedAfter).toBeLessThan(3500);
    expect(slowHead.answers().map((a) => [a.status, a.body.message])).toEqual([
      [404, 'Member nobody not found'],
      [408, 'The request was not received in time'],
    ]);

    const body = JSON.stringify({ team_id: 'slow-after-del', name: 'Slow' });
    const lateBody = connect(gw.port);
    lateBody.write(del + postHead('/teams', body.length));
    void lateBody.trickle(body, 1000);
    expect(await lateBody.closed).toBeLessThan(3500);
    expect(lateBody.answers().map((a) => [a.status, a.body.message])).toEqual([
      [404, 'Member nobody not found'],
      [408, 'The request body was not received within 1000 ms'],
    ]);
  });

  it('cuts off headers that never finish after HEADERS_TIMEOUT_MS, and a connection that sends nothing', async () => {
    const slow = connect(gw.port);
    const silent = connect(gw.port);
    slow.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    void slow.trickle('X-Slow: ' + 'a'.repeat(60), 500);
    for (const conn of [slow, silent]) {
      const closedAfter = await conn.closed;
      expect(closedAfter).toBeGreaterThanOrEqual(1000);
      expect(closedAfter).toBeLessThan(3500);
    }
    expect(slow.answers()).toEqual([
      {
        status: 408,
        headers: expect.objectContaining({ ...SECURITY_HEADERS, connection: 'close' }),
        body: { message: 'The request was not received in time', success: false, statusCode: 408 },
      },
    ]);
  });
});

describe('MAX_CONNECTIONS', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({ env: { ADMIN_TOKEN, MAX_CONNECTIONS: '2' } });
  });
  afterAll(async () => {
    await gw.stop();
  });

  it('closes a connection over the cap as it arrives, and takes new ones once others close', async () => {
    const [first, second] = [connect(gw.port), connect(gw.port)];
    await new Promise((r) => setTimeout(r, 100));
    const third = connect(gw.port);
    third.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(await third.closed).toBeLessThan(1000);
    expect(third.answers()).toEqual([]);
    first.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((r) => setTimeout(r, 200));
    expect(first.answers().map((a) => a.status)).toEqual([200]);
    first.socket.destroy();
    second.socket.destroy();
    await Promise.all([first.closed, second.closed]);
    await new Promise((r) => setTimeout(r, 100));
    expect((await gw.request('GET', '/healthz')).status).toBe(200);
  });
});

describe('the server limits by default', () => {
  it('has Node answer a late request only after the gateway would have (its answer carries the request id)', () => {
    const config = loadConfig({});
    const limits = {
      requestTimeoutMs: config.requestTimeoutMs,
      headersTimeoutMs: config.headersTimeoutMs,
      keepAliveTimeoutMs: config.keepAliveTimeoutMs,
      maxConnections: config.maxConnections,
      maxConnectionsPerAddress: config.maxConnectionsPerAddress,
    };
    expect(limits).toEqual({
      requestTimeoutMs: 10_000,
      headersTimeoutMs: 10_000,
      keepAliveTimeoutMs: 5_000,
      maxConnections: 1024,
      maxConnectionsPerAddress: 256,
    });
    // Headers may take up to headersTimeout; the gateway's 408 comes when its time-out ends.
    expect(nodeRequestTimeoutMs(limits)).toBeGreaterThan(
      limits.headersTimeoutMs + limits.requestTimeoutMs,
    );
    expect(nodeRequestTimeoutMs({ ...limits, requestTimeoutMs: 0 })).toBe(300_000);
  });

  it('sets them on the server fastify listens on', async () => {
    const gw = await startGateway();
    try {
      const server = gw.app.server;
      expect({
        headersTimeout: server.headersTimeout,
        requestTimeout: server.requestTimeout,
        keepAliveTimeout: server.keepAliveTimeout,
      }).toEqual({
        headersTimeout: 10_000,
        requestTimeout: 21_000,
        keepAliveTimeout: 5_000,
      });
    } finally {
      await gw.stop();
    }
  });
});
