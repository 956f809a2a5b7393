import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { startGateway, type TestGateway } from '../helpers/gateway';

/**
 * CORS as a browser enforces it: Chromium (Debian's: `CHROMIUM_PATH`, default /usr/bin/chromium)
 * loads a page from a server of the test's own on `http://localhost:<port>`, another origin than
 * the gateway's `http://127.0.0.1:<port>`, and the page calls the gateway with `fetch`, a bearer
 * token and a JSON body, as a front-end does: GraphQL and a REST GET, each preflighted. From the
 * origin in CORS_ORIGINS the answers arrive; from a page on an origin not listed, the browser
 * refuses them (fetch rejects), though the gateway itself answered.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const LAUNCH_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'];

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>front-end</title></head>
<body><p>A front-end on another origin</p></body></html>`;

/** Runs in the page: what a front-end's code does, and what it gets back (or how fetch failed). */
async function callGateway(args: { gateway: string; token: string }): Promise<unknown> {
  const headers = { Authorization: `Bearer ${args.token}`, 'Content-Type': 'application/json' };
  try {
    const graphql = await fetch(`${args.gateway}/graphql`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ query: '{ viewer { role } }' }),
    });
    const rest = await fetch(`${args.gateway}/teams`, { headers });
    return {
      graphql: await graphql.json(),
      rest: { status: rest.status, requestId: rest.headers.get('x-request-id') !== null },
    };
  } catch (error) {
    return { failed: String(error) };
  }
}

describe('CORS in Chromium, from a page on another origin', () => {
  let pages: http.Server;
  let pageOrigin: string;
  let gw: TestGateway;
  let browser: Browser;

  beforeAll(async () => {
    pages = http.createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
    });
    await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
    pageOrigin = `http://localhost:${(pages.address() as AddressInfo).port}`;
    gw = await startGateway({ env: { CORS_ORIGINS: pageOrigin } });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: LAUNCH_ARGS,
    });
  });

  afterAll(async () => {
    await browser?.close();
    await gw?.stop();
    pages?.close();
  });

  it('lets the page of an allowed origin call /graphql and REST with a bearer token', async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${pageOrigin}/`);
      const result = await page.evaluate(callGateway, { gateway: gw.url, token: gw.adminToken });
      expect(result).toEqual({
        graphql: { data: { viewer: { role: 'ADMIN' } } },
        rest: { status: 200, requestId: true },
      });
    } finally {
      await page.close();
    }
  });

  it('leaves a page on an origin not in CORS_ORIGINS without the answers', async () => {
    const page = await browser.newPage();
    try {
      // The same page server, reached as 127.0.0.1: another origin, not listed.
      await page.goto(`${pageOrigin.replace('localhost', '127.0.0.1')}/`);
      const result = await page.evaluate(callGateway, { gateway: gw.url, token: gw.adminToken });
      expect(result).toEqual({ failed: 'TypeError: Failed to fetch' });
    } finally {
      await page.close();
    }
  });
});
