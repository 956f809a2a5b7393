/**
 * Outgoing webhook requests refuse loopback, private, link-local and other non-public addresses
 * by default: at creation (400) and again at each delivery, where the connection goes to the
 * address checked.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { postWebhook, WebhookConnections } from '../../src/events/webhooks/post-webhook';
import { isPublicAddress, resolveWebhookUrl } from '../../src/events/webhooks/ssrf-guard';
import { startGateway, type TestGateway } from '../helpers/gateway';

describe('isPublicAddress', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '2002:7f00:1::1',
    '64:ff9b::7f00:1',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['8.8.8.8', '1.1.1.1', '2001:4860:4860::8888'])('allows %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});

describe('resolveWebhookUrl', () => {
  it.each([
    ['http://localhost/hook', /resolves to (127\.0\.0\.1|::1), a loopback address/],
    ['http://127.0.0.1:8080/hook', /127\.0\.0\.1, a loopback address/],
    ['http://0x7f.1/hook', /127\.0\.0\.1/],
    ['http://[::1]/hook', /::1, a loopback address/],
    ['http://169.254.169.254/latest/meta-data', /linkLocal/],
    ['http://[::ffff:7f00:1]/', /127\.0\.0\.1|loopback/],
    ['ftp://example.com/', /http/],
    ['https://user:pw@example.com/', /credentials/],
    ['not a url', /not a URL/],
  ])('refuses %s', async (url, reason) => {
    await expect(resolveWebhookUrl(url, false)).rejects.toThrow(reason);
  });

  it('lets private addresses through when allowed', async () => {
    const { addresses } = await resolveWebhookUrl('http://127.0.0.1:9/x', true);
    expect(addresses).toEqual([{ address: '127.0.0.1', family: 4 }]);
  });
});

describe('postWebhook', () => {
  let server: http.Server;
  let url: string;
  let hits = 0;
  const connections = new WebhookConnections(4);
  beforeAll(async () => {
    server = http.createServer((request, response) => {
      hits += 1;
      if (request.url === '/redirect') response.writeHead(302, { location: '/elsewhere' }).end();
      else if (request.url === '/slow') setTimeout(() => response.end('late'), 2000);
      else if (request.url === '/big') response.end(Buffer.alloc(1024 * 1024, 'x'));
      else response.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    connections.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const post = (path: string, allowPrivate = true, timeoutMs = 1000) =>
    postWebhook({
      url: `${url}${path}`,
      headers: {},
      body: '{}',
      timeoutMs,
      allowPrivate,
      connections,
    });

  it('never connects to a loopback address unless allowed', async () => {
    hits = 0;
    const refused = await post('/', false);
    expect(refused).toMatchObject({ status: null, error: expect.stringMatching(/loopback/) });
    expect(hits).toBe(0);
    expect(await post('/')).toMatchObject({ status: 200, error: null });
  });

  it('sends one attempt after another on the connection it keeps to the endpoint', async () => {
    let opened = 0;
    const count = () => (opened += 1);
    server.on('connection', count);
    try {
      for (let i = 0; i < 3; i += 1) expect(await post('/')).toMatchObject({ status: 200 });
    } finally {
      server.off('connection', count);
    }
    expect(opened).toBeLessThanOrEqual(1);
  });

  it('does not follow a redirect, times out, and reads a bounded answer', async () => {
    expect(await post('/redirect')).toMatchObject({ status: 302, error: 'answered 302' });
    expect(await post('/slow', true, 300)).toMatchObject({
      status: null,
      error: 'no answer within 300 ms',
    });
    expect(await post('/big')).toMatchObject({ status: 200, error: null });
  });
});

describe('a gateway with the default settings', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startGateway();
  });
  afterAll(async () => {
    await gateway?.stop();
  });

  it('refuses a webhook to a private address with 400 naming it', async () => {
    for (const url of ['http://127.0.0.1:9/hook', 'http://10.0.0.8/hook', 'http://localhost/x']) {
      const response = await gateway.request('POST', '/webhooks', {
        body: { url, events: ['*'] },
      });
      expect(response.status).toBe(400);
      expect(response.body.errors[0]).toMatchObject({
        field: 'url',
        message: expect.stringMatching(/WEBHOOK_ALLOW_PRIVATE_URLS/),
      });
    }
  });
});
