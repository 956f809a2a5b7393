import http from 'node:http';
import net from 'node:net';
import { handleClientError } from '../../src/server/client-error';
import { restAfterDel } from '../../src/server/del-method-resume';
import { startGateway, type TestGateway } from '../helpers/gateway';
import { rawExchange } from '../helpers/raw-http';

describe('restAfterDel', () => {
  const rest = (packet: string, at: number, before?: string): string | null =>
    restAfterDel(
      Buffer.from(packet, 'latin1'),
      at,
      before === undefined ? undefined : Buffer.from(before, 'latin1'),
    )?.toString('latin1') ?? null;

  it('finds the request after a DEL method seen whole, at the start or behind earlier bytes', () => {
    expect(rest('DEL /a HTTP/1.1\r\n\r\n', 3)).toBe(' /a HTTP/1.1\r\n\r\n');
    expect(rest('GET / HTTP/1.1\r\n\r\n\r\nDEL /a HTTP/1.1\r\n\r\n', 23)).toBe(
      ' /a HTTP/1.1\r\n\r\n',
    );
  });

  it('joins the bytes of the previous read when the method was cut', () => {
    expect(rest(' /a HTTP/1.1', 0, '\nDEL')).toBe(' /a HTTP/1.1');
    expect(rest('L /a HTTP/1.1', 1, '\nDE')).toBe(' /a HTTP/1.1');
    expect(rest('EL /a HTTP/1.1', 2, '\r\nD')).toBe(' /a HTTP/1.1');
  });

  it('refuses anything else, and a cut method whose start it was not given', () => {
    expect(rest('DELX /a HTTP/1.1', 3)).toBeNull(); // stopped on X, not a space
    expect(rest('L /a HTTP/1.1', 1)).toBeNull(); // "L", or "DE" + "L"? not known, so not guessed
    expect(rest('L /a HTTP/1.1', 1, '\nUN')).toBeNull();
    expect(rest('del /a', 3)).toBeNull();
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
    const server = http.createServer(
      { requestTimeout: 500, connectionsCheckingInterval: 100 },
      (req, res) => {
        req.resume();
        req.on('end', () => res.end('complete'));
      },
    );
    server.on('clientError', handleClientError.bind({ log: { debug: () => undefined } } as never));
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
