import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AnswerCache, callerKey } from '../cache/answer-cache';
import type { ContextBuilder } from '../server/context-builder';
import type { RouteDefinition } from './route-definition';
import { buildRestInput } from './build-input';

/** Route config fastify keeps per route: the error handler reads the envelope shape from it. */
export interface RestRouteConfig {
  errorShape?: RouteDefinition['errorShape'];
  /** Set on the GraphQL route: errors raised before Apollo runs (body parsing) answer as GraphQL errors. */
  graphql?: boolean;
}

/** A kept REST answer: the status and the body exactly as it was serialised. */
interface SerialisedAnswer {
  status: number;
  text: string;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Registers each RouteDefinition with fastify: authenticate (unless public), build and validate
 * the input, call the handler, serialise the answer with the route's response schema. Errors
 * are thrown on to the app's error handler, which renders the envelope. Answers of cacheable
 * routes are kept serialised, per caller and raw URL, until a write lands: the same URL always
 * builds the same input, so a kept answer skips input checks, services and serialisation alike.
 */
export function registerRestRoutes(
  app: FastifyInstance,
  routes: readonly RouteDefinition[],
  contexts: ContextBuilder,
  answers: AnswerCache<SerialisedAnswer> = new AnswerCache(),
): void {
  for (const route of routes) {
    const cacheable = route.cacheable === true && route.method === 'GET';
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
        const key = cacheable && request.body === undefined ? `${callerKey(ctx.principal)}\u0000${request.url}` : null;
        if (key !== null) {
          const kept = answers.get(key);
          if (kept) return reply.code(kept.status).type(JSON_TYPE).send(kept.text);
        }
        const ticket = key === null ? null : answers.begin();
        const input = await buildRestInput(route, request);
        const result = await route.handler(ctx, input as object);
        const status = typeof result.statusCode === 'number' ? result.statusCode : 200;
        reply.code(status);
        if (key === null) return reply.send(result);
        // The route's compiled response serialiser, as reply.send would use it.
        const text = String(reply.serialize(result));
        if (status === 200) answers.keep(key, { status, text }, text.length, ticket);
        return reply.type(JSON_TYPE).send(text);
      },
    });
  }
}
