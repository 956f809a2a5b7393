import { startGateway, type TestGateway } from '../helpers/gateway';

describe('GET /', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(async () => {
    await gw.stop();
  });

  it('sends a browser to the explorer', async () => {
    const answer = await fetch(`${gw.url}/`, {
      redirect: 'manual',
      headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
    });
    expect(answer.status).toBe(302);
    expect(answer.headers.get('location')).toBe('/graphiql');
    expect(answer.headers.get('x-request-id')).not.toBeNull();
  });

  it('gives a JSON client a small index of links, without a token', async () => {
    for (const accept of ['application/json', '*/*', undefined]) {
      const answer = await gw.request('GET', '/', {
        token: null,
        headers: accept ? { accept } : {},
      });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({
        message:
          'Pipeline Gateway: GraphQL at /graphql (explorer at /graphiql), REST routes described at /openapi.json',
        success: true,
        statusCode: 200,
        links: {
          graphql: '/graphql',
          explorer: '/graphiql',
          openapi: '/openapi.json',
          health: '/healthz',
          metrics: '/metrics',
        },
      });
    }
  });
});
