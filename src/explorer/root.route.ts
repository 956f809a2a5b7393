import type { FastifyInstance } from 'fastify';
import { prefersHtml } from './prefers-html';

/** What `GET /` lists for a client that asked for JSON: where everything is. */
export const ROOT_LINKS = {
  graphql: '/graphql',
  explorer: '/graphiql',
  openapi: '/openapi.json',
  health: '/healthz',
  metrics: '/metrics',
} as const;

/**
 * `GET /`: a browser (an `Accept` that ranks `text/html` first) is sent to the explorer with a
 * `302`; any other client gets a small JSON index of links, in the contract's envelope.
 */
export function registerRootRoute(app: FastifyInstance): void {
  app.get('/', async (request, reply) => {
    if (prefersHtml(request.headers.accept)) return reply.redirect(ROOT_LINKS.explorer, 302);
    return reply.send({
      message:
        'Pipeline Gateway: GraphQL at /graphql (explorer at /graphiql), REST routes described at /openapi.json',
      success: true,
      statusCode: 200,
      links: ROOT_LINKS,
    });
  });
}
