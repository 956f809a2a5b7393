import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AnswerCache, callerKey } from '../cache/answer-cache';
import type { RequestContext } from '../context/request-context';
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

/** The same URL always builds the same input (or the same rejection), so it stands for the input. */
function answerKey(ctx: RequestContext, request: FastifyRequest): string {
  return `${callerKey(ctx.principal)}\u0000${request.url}`;
}

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

    /** The whole way: authenticate, check and build the input, run the service, serialise. */
    async function answer(request: FastifyRequest, reply: FastifyReply, known: RequestContext | undefined): Promise<FastifyReply> {
      const ctx =
        known ??
        (await contexts.build({
          requestId: request.id,
          authorization: request.headers.authorization,
          authenticated: route.authenticated,
        }));
      const key = cacheable && request.body === undefined ? answerKey(ctx, request) : null;
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
      if (status === 200) answers.keep(key, { status, text }, key.length + text.length, ticket);
      return reply.type(JSON_TYPE).send(text);
    }

    app.route({
      method: route.method,
      url: route.path,
      config: { errorShape: route.errorShape } satisfies RestRouteConfig,
      schema: { response: { 200: route.response } },
      // A kept answer for a caller known from memory is sent without a promise or a microtask:
      // that is most reads, and the work left per request is then fastify's and Node's.
      handler: (request: FastifyRequest, reply: FastifyReply) => {
        if (!cacheable || request.body !== undefined) return answer(request, reply, undefined);
        const ctx = contexts.buildNow({ requestId: request.id, authorization: request.headers.authorization, authenticated: route.authenticated });
        if (ctx === undefined) return answer(request, reply, undefined);
        const kept = answers.get(answerKey(ctx, request));
        if (kept === undefined) return answer(request, reply, ctx);
        return reply.code(kept.status).type(JSON_TYPE).send(kept.text);
      },
    });
  }
}
