import { buildExplorerAssets } from '../../src/explorer/build-assets';
import { EXPLORER_DEFAULT_QUERY, EXPLORER_HOWTO_WIDTH } from '../../src/explorer/defaults';
import { EXPLORER_CSP } from '../../src/explorer/explorer-page';
import { startGateway, type TestGateway } from '../helpers/gateway';

const BROWSER_ACCEPT =
  'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

function assetUrls(page: string): string[] {
  return [...page.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
}

function pageConfig(page: string): {
  endpoint: string;
  defaultQuery: string;
  defaultHeaders: string;
} {
  const block = /<script id="graphiql-config" type="application\/json">([^<]*)<\/script>/.exec(
    page,
  );
  if (!block) throw new Error('page has no #graphiql-config block');
  return JSON.parse(block[1]!);
}

describe('GraphiQL explorer', () => {
  let gateway: TestGateway;

  beforeAll(async () => {
    await buildExplorerAssets();
    gateway = await startGateway();
  });
  afterAll(async () => {
    await gateway?.stop();
  });

  it('serves the page at /graphiql without a token, with a self-only CSP and no caching', async () => {
    const res = await gateway.request<string>('GET', '/graphiql', { token: null });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toBe(EXPLORER_CSP);
    expect(EXPLORER_CSP).toContain("default-src 'self'");
    expect(EXPLORER_CSP).not.toMatch(/unsafe|https?:|data:|\*/);
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.body).toContain('<div id="graphiql">');
    // Everything the page loads is a local, hashed asset.
    const urls = assetUrls(res.body);
    expect(urls).toHaveLength(3);
    for (const url of urls)
      expect(url).toMatch(/^\/graphiql\/assets\/(explorer|favicon)-[0-9a-f]{12}\.(js|css|svg)$/);
  });

  it('prefills the header editor with where to paste the token, and the default query', async () => {
    const config = pageConfig(
      (await gateway.request<string>('GET', '/graphiql', { token: null })).body,
    );
    expect(config.endpoint).toBe('/graphql');
    expect(JSON.parse(config.defaultHeaders)).toEqual({
      Authorization: 'Bearer <paste the token printed at start>',
    });
    expect(config.defaultQuery).toContain('query ExplorerOverview');
    expect(config.defaultQuery).toMatch(
      /definitions \{[\s\S]*pipelines \{[\s\S]*metrics \{[\s\S]*stages \{/,
    );
  });

  it('opens the default query on a how-to (paste the token, run) in lines short enough to show whole', () => {
    const howTo = EXPLORER_DEFAULT_QUERY.slice(0, EXPLORER_DEFAULT_QUERY.indexOf('\n\n')).split(
      '\n',
    );
    expect(howTo.every((line) => line.startsWith('#'))).toBe(true);
    expect(howTo.join(' ').replace(/#\s*/g, '')).toMatch(
      /Paste the token printed at start into Headers.*Run the query/,
    );
    expect(howTo.filter((line) => line.length > EXPLORER_HOWTO_WIDTH)).toEqual([]);
  });

  it('serves every asset of the page and of its stylesheet as immutable, with the right type', async () => {
    const page = (await gateway.request<string>('GET', '/graphiql', { token: null })).body;
    const [script, stylesheet] = [
      assetUrls(page).find((u) => u.endsWith('.js'))!,
      assetUrls(page).find((u) => u.endsWith('.css'))!,
    ];
    const js = await gateway.request<string>('GET', script, { token: null });
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const css = await gateway.request<string>('GET', stylesheet, { token: null });
    expect(css.status).toBe(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    const refs = [...css.body.matchAll(/url\(([^)]*)\)/g)].map((m) =>
      m[1]!.replace(/^['"]|['"]$/g, ''),
    );
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) expect(ref).toMatch(/^\.\/[0-9a-f]{16}\.(woff2?|png)$/); // no data: and no remote URL
    for (const ref of new Set(refs)) {
      const file = await gateway.request('GET', `/graphiql/assets/${ref.slice(2)}`, {
        token: null,
      });
      expect(file.status).toBe(200);
      expect(file.headers['cache-control']).toContain('immutable');
    }
  });

  it('gives the page and its assets every security header, and no-store when the request carries credentials', async () => {
    const page = await gateway.request<string>('GET', '/graphiql', { token: null });
    const script = assetUrls(page.body).find((u) => u.endsWith('.js'))!;
    const asset = await gateway.request('GET', script, { token: null });
    for (const res of [page, asset]) {
      expect(res.headers).toMatchObject({
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
        'x-frame-options': 'DENY',
        'cross-origin-resource-policy': 'same-origin',
      });
    }
    expect(asset.headers['content-security-policy']).toBe(
      "default-src 'none'; frame-ancestors 'none'",
    );
    // With a token (GraphiQL's own requests, a proxy adding one): nothing is stored, the page keeps its CSP.
    const pageWithToken = await gateway.request('GET', '/graphiql');
    expect(pageWithToken.headers['cache-control']).toBe('no-store');
    expect(pageWithToken.headers['content-security-policy']).toBe(EXPLORER_CSP);
    expect((await gateway.request('GET', script)).headers['cache-control']).toBe('no-store');
    const htmlAtGraphql = await gateway.request('GET', '/graphql', {
      headers: { accept: BROWSER_ACCEPT },
    });
    expect(htmlAtGraphql.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(htmlAtGraphql.headers['cache-control']).toBe('no-store');
  });

  it('answers 404 for a file the build did not write, without touching the file system', async () => {
    const res = await gateway.request('GET', '/graphiql/assets/manifest.json', { token: null });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({
      success: false,
      statusCode: 404,
      message: 'No GraphiQL asset named manifest.json',
    });
    const traversal = await gateway.request('GET', '/graphiql/assets/..%2F..%2Fpackage.json', {
      token: null,
    });
    expect(traversal.status).toBe(404);
  });

  it('gives browsers the page at /graphql, and GraphQL clients GraphQL', async () => {
    const browser = await gateway.request<string>('GET', '/graphql', {
      token: null,
      headers: { accept: BROWSER_ACCEPT },
    });
    expect(browser.status).toBe(200);
    expect(browser.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(browser.body).toContain('id="graphiql-config"');
    const slash = await gateway.request<string>('GET', '/graphql/', {
      token: null,
      headers: { accept: BROWSER_ACCEPT },
    });
    expect(slash.headers['content-type']).toBe('text/html; charset=utf-8');
    const client = await gateway.request('GET', '/graphql', {
      query: { query: '{ __typename }' },
      headers: { accept: 'application/graphql-response+json', 'apollo-require-preflight': 'true' },
    });
    expect({ status: client.status, body: client.body }).toEqual({
      status: 200,
      body: { data: { __typename: 'Query' } },
    });
  });
});
