import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../auth/principal';
import { callerKey, type AnswerCache, type KeptRestAnswer } from '../data/answer-cache';
import { ForbiddenError } from '../errors';
import { INPUT_LIMITS } from '../validation';
import type { Idempotency } from '../security/idempotency/idempotency';
import type { ContextBuilder } from '../server/context-builder';
import { buildRestInput } from './build-input';
import type { RouteDefinition } from './route-definition';

/** Route config fastify keeps per route: the error handler reads the envelope shape from it. */
export interface RestRouteConfig {
  errorShape?: RouteDefinition['errorShape'];
  /** Set on the GraphQL route: errors raised before Apollo runs (body parsing) answer as GraphQL errors. */
  graphql?: boolean;
}

declare module 'fastify' {
  // The gateway's own route settings, typed as fastify documents for a route's `config`.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface FastifyContextConfig extends RestRouteConfig {}
}

/** The media type of every REST answer. */
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The key of a GET's kept answer: the caller and the raw URL. The same URL always builds the same
 * input (or the same rejection), so the URL as sent stands for the whole request.
 */
function answerKey(principal: Principal | null, url: string): string {
  return `${callerKey(principal)}\u0000${url}`;
}

/**
 * Registers each RouteDefinition with fastify. One way through for every request: the caller
 * (from the authentication hook) and the route's role gate, before the body is read; then the
 * context, for a cacheable GET without a body the answer kept under the request's view of the
 * data, else the input built and validated, the handler's one service call, and the answer
 * serialised with the route's response schema (and kept, when it may be). A write (any method but
 * GET) runs the same way inside `writes.runRest`: its Idempotency-Key, and a 503 that says its
 * outcome is not known when that is so. Errors are thrown on to the app's error handler, which
 * renders the envelope.
 */
export function registerRestRoutes(
  app: FastifyInstance,
  routes: readonly RouteDefinition[],
  contexts: ContextBuilder,
  answers: AnswerCache<KeptRestAnswer>,
  writes: Idempotency,
): void {
  for (const route of routes) {
    const cacheable = route.cacheable === true && route.method === 'GET';

    async function handle(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
      // The caller was admitted before the body was read (admit, below).
      const caller = route.authenticated ? contexts.authenticated(request) : null;
      const ctx = caller ?? contexts.anyone(request);
      const key =
        cacheable && request.body === undefined ? answerKey(ctx.principal, request.url) : null;
      // The view first, so that whatever the handler reads comes after the versions it is kept under.
      const view = key === null ? undefined : await ctx.data.ensureView();
      const kept = key === null ? undefined : answers.get(key, view!);
      if (kept) return reply.code(kept.status).type(JSON_TYPE).send(kept.body);
      const input = (await buildRestInput(route, request)) as object;
      const result = route.authenticated
        ? await route.handler(caller!, input)
        : await route.handler(ctx, input);
      const status = typeof result.statusCode === 'number' ? result.statusCode : 200;
      reply.code(status);
      for (const header of route.successHeaders ?? [])
        reply.header(header.name, header.value(result));
      if (key === null || status !== 200) return reply.send(result);
      // Serialised once with the route's compiled serialiser, kept, and sent as it is.
      const body = Buffer.from(String(reply.serialize(result)));
      answers.keep(key, { status, body }, key.length + body.length, view!);
      return reply.type(JSON_TYPE).send(body);
    }

    /** A write: its input, the handler's one service call, the answer as bytes (for its key too). */
    function write(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
      return writes.runRest(
        request,
        reply,
        { refusesKey: route.refusesIdempotencyKey },
        async () => {
          const caller = route.authenticated ? contexts.authenticated(request) : null;
          const input = (await buildRestInput(route, request)) as object;
          const result = route.authenticated
            ? await route.handler(caller!, input)
            : await route.handler(contexts.anyone(request), input);
          const status = typeof result.statusCode === 'number' ? result.statusCode : 200;
          const serialize = reply.getSerializationFunction(String(status)) ?? JSON.stringify;
          const headers = Object.fromEntries(
            (route.successHeaders ?? []).map((header) => [header.name, header.value(result)]),
          );
          return {
            status,
            contentType: JSON_TYPE,
            ...(route.successHeaders ? { headers } : {}),
            body: Buffer.from(String(serialize(result))),
          };
        },
      );
    }

    /**
     * The caller (401) and the route's role gate (403), before fastify reads and parses the body:
     * a caller the route turns away, whatever they send, costs neither the parsing nor the
     * validation of their input.
     */
    function admit(request: FastifyRequest): void {
      if (!route.authenticated) return;
      const { principal } = contexts.authenticated(request);
      if (route.roles.allowed.includes(principal.role)) return;
      route.roles.refuse(principal);
      throw new ForbiddenError(
        `The ${principal.role} role may not call ${route.method} ${route.path}`,
      );
    }

    app.route({
      method: route.method,
      url: route.path,
      bodyLimit: route.largeBody
        ? app.initialConfig.bodyLimit
        : Math.min(INPUT_LIMITS.maxSmallBodyBytes, app.initialConfig.bodyLimit ?? Infinity),
      config: { errorShape: route.errorShape } satisfies RestRouteConfig,
      schema: { response: { [route.successStatus ?? 200]: route.response } },
      preParsing: (request, _reply, payload, done) => {
        try {
          admit(request);
        } catch (error) {
          done(error as Error);
          return;
        }
        done(null, payload);
      },
      handler: route.method === 'GET' ? handle : write,
    });
  }
}
