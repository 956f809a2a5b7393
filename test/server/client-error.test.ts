import net from 'node:net';
import { loadConfig } from '../../src/config';
import { delRequestStart } from '../../src/server/del-method-handover';
import { HttpEdge } from '../../src/server/http-edge';
import { startGateway, type TestGateway } from '../helpers/gateway';
import { rawExchange } from '../helpers/raw-http';

describe('delRequestStart', () => {
  const start = (packet: string, at: number): string | null =>
    delRequestStart(
      Object.assign(new Error('Parse Error: Invalid method encountered'), {
        code: 'HPE_INVALID_METHOD',
        rawPacket: Buffer.from(packet, 'latin1'),
        bytesParsed: at,
      }),
    )?.toString('latin1') ?? null;

  it('finds the request from a DEL method seen whole, at the start or behind earlier bytes', () => {
    expect(start('DEL /a HTTP/1.1\r\n\r\n', 3)).toBe('DEL /a HTTP/1.1\r\n\r\n');
    expect(start('GET / HTTP/1.1\r\n\r\n\r\nDEL /a HTTP/1.1\r\n\r\n', 23)).toBe(
      'DEL /a HTTP/1.1\r\n\r\n',
    );
  });

  it('refuses anything else, and a method whose start was in an earlier read', () => {
    expect(start('DELX /a HTTP/1.1', 3)).toBeNull(); // stopped on X, not a space
    expect(start('L /a HTTP/1.1', 1)).toBeNull(); // "DE" + "L", or "UN" + "L"? not known, so not guessed
    expect(start(' /a HTTP/1.1', 0)).toBeNull();
    expect(start('del /a', 3)).toBeNull();
    expect(
      delRequestStart(Object.assign(new Error('timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' })),
    ).toBeNull();
  });
});

describe('requests Node cannot parse', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(async () => {
    await gw.stop();
  });

  it('answers bytes that are not HTTP with the 400 envelope and the security headers, then closes', async () => {
    const responses = await rawExchange(gw.port, 'HELLO THERE\r\n\r\n', 2);
    expect(responses).toEqual([
      {
        status: 400,
        headers: expect.objectContaining({
          'content-type': 'application/json; charset=utf-8',
          'x-content-type-options': 'nosniff',
          'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
          'cache-control': 'no-store',
          connection: 'close',
        }),
        body: {
          message: 'Malformed HTTP request: Invalid method encountered',
          success: false,
          statusCode: 400,
        },
      },
    ]);
  });

  it('answers 431 for headers larger than Node accepts', async () => {
    const [res, ...more] = await rawExchange(
      gw.port,
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      2,
    );
    expect(res).toMatchObject({
      status: 431,
      body: { message: 'The request headers are too large', success: false, statusCode: 431 },
    });
    expect(more).toEqual([]);
  });

  it('names what is malformed without echoing the request', async () => {
    const [res] = await rawExchange(
      gw.port,
      'GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header: secret-value\r\n\r\n',
      2,
    );
    expect(res!.status).toBe(400);
    expect(res!.body.message).toMatch(/^Malformed HTTP request: /);
    expect(JSON.stringify(res)).not.toContain('secret-value');
  });
});

describe("Node's own request timeout", () => {
  it('answers 408 in place of the request whose body never arrives, and closes, without waiting for its handler', async () => {
    // The gateway's own budget answers a late body first; Node's timeout is the backstop that
    // remains when that budget is off (REQUEST_TIMEOUT_MS=0). A short one stands in for it here.
    const config = loadConfig({});
    const edge = new HttpEdge({
      limits: { ...config, requestTimeoutMs: 0, headersTimeoutMs: 400 },
      log: { debug: () => undefined },
    });
    const server = edge.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.end('complete'));
    });
    server.requestTimeout = 500;
    server.on('clientError', edge.handleClientError);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const socket = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
      const closed = new Promise<number>((resolve) =>
        socket.on('close', () => resolve(Date.now())),
      );
      const sent = Date.now();
      socket.write(
        'POST /x HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":',
      );
      const closedAt = await closed;
      expect(received).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
      expect(received).toContain('"message":"The request was not received in time"');
      expect(closedAt - sent).toBeLessThan(5_000);
    } finally {
      server.close();
    }
  });
});
