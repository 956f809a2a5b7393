import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ContextBuilder } from '../server/context-builder';
import type { RouteDefinition } from './route-definition';
import { buildRestInput } from './build-input';

/** Route config fastify keeps per route: the error handler reads the envelope shape from it. */
export interface RestRouteConfig {
  errorShape?: RouteDefinition['errorShape'];
  /** Set on the GraphQL route: errors raised before Apollo runs (body parsing) answer as GraphQL errors. */
  graphql?: boolean;
}

/**
 * Registers each RouteDefinition with fastify: authenticate (unless public), build and validate
 * the input, call the handler, serialise the answer with the route's response schema. Errors
 * are thrown on to the app's error handler, which renders the envelope.
 */
export function registerRestRoutes(app: FastifyInstance, routes: readonly RouteDefinition[], contexts: ContextBuilder): void {
  for (const route of routes) {
    app.route({
      method: route.method,
      url: route.path,
      config: { errorShape: route.errorShape } satisfies RestRouteConfig,
      schema: { response: { 200: route.response } },
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const ctx = await contexts.build({
          requestId: request.id,
          authorization: request.headers.authorization,
          authenticated: route.authenticated,
        });
        const input = await buildRestInput(route, request);
        const result = await route.handler(ctx, input as object);
        const status = typeof result.statusCode === 'number' ? result.statusCode : 200;
        return reply.code(status).send(result);
      },
    });
  }
}
