import { readFileSync } from 'node:fs';
import { ROUTES } from '../../src/rest/routes';
import { openApiPath } from '../../src/openapi/openapi-document';
import { startGateway, type TestGateway } from '../helpers/gateway';
import { validateOpenApi } from './validate-openapi';

const CONTRACT = '/work/shared/docs/rest-contract.md';
/** Not REST routes: GraphQL and the explorer page are described elsewhere. */
const NOT_REST = new Set(['/graphql', '/graphiql']);

const METHOD = '(?:GET|POST|PUT|PATCH|DELETE|DEL)';

/**
 * Every `METHOD /path` the REST contract names, in headings and in code spans (`DEL` is DELETE;
 * `GET/PATCH/DEL /x` names three; a query string is no part of the path).
 */
function contractRoutes(markdown: string): string[] {
  const found = new Set<string>();
  const add = (methods: string, rawPath: string): void => {
    const path = rawPath.split('?')[0]!;
    if (NOT_REST.has(path)) return;
    for (const method of methods.split('/'))
      found.add(`${method === 'DEL' ? 'DELETE' : method} ${path}`);
  };
  const route = new RegExp(`^\\s*(${METHOD}(?:/${METHOD})*) (\\/\\S*)\\s*$`);
  for (const heading of markdown.matchAll(/^### (.+)$/gm)) {
    for (const part of heading[1]!.split(',')) {
      const match = route.exec(part);
      if (match) add(match[1]!, match[2]!);
    }
  }
  const span = new RegExp(`\`(${METHOD}(?:/${METHOD})*) (\\/[^\`\\s]*)\``, 'g');
  for (const match of markdown.matchAll(span)) add(match[1]!, match[2]!);
  return [...found].sort();
}

type Json = Record<string, any>;

describe('GET /openapi.json', () => {
  let gateway: TestGateway;
  let document: Json;

  beforeAll(async () => {
    gateway = await startGateway();
    const res = await gateway.request<Json>('GET', '/openapi.json', { token: null });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('application/json');
    document = res.body;
  });
  afterAll(async () => {
    await gateway?.stop();
  });

  it('is a valid OpenAPI 3.1 document, served without a token', () => {
    expect(document.openapi).toBe('3.1.0');
    const result = validateOpenApi(document);
    expect(result.errors).toBeNull();
    expect(result).toMatchObject({ valid: true, version: '3.1' });
  });

  it('names the gateway it is fetched from as its server, whatever Host the request carried', async () => {
    const expected = [{ url: '/', description: expect.stringContaining('fetched from') }];
    expect(document.servers).toEqual(expected);
    const forged = await gateway.request<Json>('GET', '/openapi.json', {
      token: null,
      headers: { host: 'attacker.example', 'x-forwarded-host': 'attacker.example' },
    });
    expect(forged.status).toBe(200);
    expect(forged.body.servers).toEqual(expected);
  });

  it('describes every route of the REST contract', () => {
    const routes = contractRoutes(readFileSync(CONTRACT, 'utf8'));
    expect(routes.length).toBeGreaterThanOrEqual(20);
    const described = (route: string) => {
      const [method, path] = route.split(' ') as [string, string];
      return document.paths[path]?.[method.toLowerCase()] !== undefined;
    };
    expect(routes.filter((route) => !described(route))).toEqual([]);
  });

  it('describes every registered route, with the bearer scheme unless it is public', () => {
    for (const route of ROUTES) {
      const operation = document.paths[openApiPath(route.path)]?.[route.method.toLowerCase()];
      expect({ route: `${route.method} ${route.path}`, present: operation !== undefined }).toEqual({
        route: `${route.method} ${route.path}`,
        present: true,
      });
      expect(operation.security).toEqual(route.authenticated ? [{ bearerAuth: [] }] : []);
    }
    for (const path of ['/healthz', '/readyz', '/openapi.json'])
      expect(document.paths[path].get.security).toEqual([]);
  });

  it('documents request bodies from the input classes and the shared error envelope', () => {
    const createMember = document.paths['/teams/members'].post;
    const body = createMember.requestBody.content['application/json'].schema;
    expect(body.additionalProperties).toBe(false);
    expect(body.required).toEqual(
      expect.arrayContaining(['lastname', 'firstname', 'email', 'role', 'memberOf']),
    );
    expect(createMember.responses['400']).toEqual({ $ref: '#/components/responses/BadRequest' });
    expect(createMember.responses['401']).toEqual({ $ref: '#/components/responses/Unauthorized' });
    expect(document.components.schemas.ErrorEnvelope.required).toEqual([
      'message',
      'success',
      'statusCode',
    ]);
    // The contract's 404s and 409s, as the routes declare them.
    expect(Object.keys(createMember.responses)).toEqual(expect.arrayContaining(['404', '409']));
    expect(Object.keys(document.paths['/settings/periods'].post.responses)).toContain('409');
    expect(Object.keys(document.paths['/settings/currencies'].get.responses)).toContain('404');
    expect(Object.keys(document.paths['/readyz'].get.responses)).toContain('503');
    const metrics = document.paths['/pipelines/metrics'].get;
    expect(metrics.parameters.map((p: Json) => p.name)).toEqual(
      expect.arrayContaining(['pipeline_id', 'metrics']),
    );
    expect(metrics.responses['404'].content['application/json'].schema.properties.status).toEqual({
      $ref: '#/components/schemas/ErrorEnvelope',
    });
  });
});
