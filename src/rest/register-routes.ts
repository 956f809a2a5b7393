import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AnswerCache } from '../data/answer-cache';
import { trackReads } from '../data/read-tracking';
import type { RequestContext } from '../context/request-context';
import type { ContextBuilder } from '../server/context-builder';
import type { RouteDefinition } from './route-definition';
import { buildRestInput } from './build-input';
import { answerNow, type AnswerRecipe, type AnswerRecipes } from './answer-recipes';
import { JSON_TYPE, keptAnswerKey, type KeptRestAnswer } from './kept-answer';

/** Route config fastify keeps per route: the error handler reads the envelope shape from it. */
export interface RestRouteConfig {
  errorShape?: RouteDefinition['errorShape'];
  /** Set on the GraphQL route: errors raised before Apollo runs (body parsing) answer as GraphQL errors. */
  graphql?: boolean;
}

/**
 * Registers each RouteDefinition with fastify: authenticate (unless public), build and validate
 * the input, call the handler, serialise the answer with the route's response schema. Errors
 * are thrown on to the app's error handler, which renders the envelope. Answers of cacheable
 * routes are kept serialised, per caller and raw URL, while the scopes their computation read are
 * unchanged (AnswerCache): the same URL always builds the same input (or the same rejection), so a
 * kept answer skips input checks, services and serialisation alike.
 */
export function registerRestRoutes(
  app: FastifyInstance,
  routes: readonly RouteDefinition[],
  contexts: ContextBuilder,
  answers: AnswerCache<KeptRestAnswer>,
  recipes: AnswerRecipes,
): void {
  for (const route of routes) {
    const cacheable = route.cacheable === true && route.method === 'GET';
    const contextRequest = (request: FastifyRequest) => ({
      requestId: request.id,
      authorization: request.headers.authorization,
      authenticated: route.authenticated,
    });
    /** The key of a request's answer, or null when it is not to be kept (not cacheable, or sent with a body). */
    const keyOf = (ctx: RequestContext, request: FastifyRequest): string | null =>
      cacheable && request.body === undefined ? keptAnswerKey(ctx.principal, request.url) : null;
    const sendKept = (reply: FastifyReply, kept: KeptRestAnswer): FastifyReply =>
      reply.code(kept.status).type(JSON_TYPE).send(kept.body);
    /** The recipe of a cacheable request's URL, learnt on its first answer (AnswerRecipes). */
    const recipeOf = async (
      request: FastifyRequest,
      reply: FastifyReply,
    ): Promise<AnswerRecipe> => {
      const known = recipes.get(request.url);
      if (known) return known;
      const input = (await buildRestInput(route, request)) as object | undefined;
      // The route's compiled response serialiser, as reply.send would use it for a 200.
      const compiled = reply.getSerializationFunction('200');
      const recipe = { route, input, serialize: compiled ?? JSON.stringify };
      recipes.learn(request.url, recipe);
      return recipe;
    };

    /** Sends a handler's result; where it may be kept (`key`), serialised once and kept. */
    const sendComputed = (
      reply: FastifyReply,
      ctx: RequestContext,
      key: string | null,
      result: Record<string, unknown>,
    ): FastifyReply => {
      const status = typeof result.statusCode === 'number' ? result.statusCode : 200;
      reply.code(status);
      if (key === null) return reply.send(result);
      // The route's compiled response serialiser, as reply.send would use it.
      const body = Buffer.from(String(reply.serialize(result)));
      if (status === 200)
        answers.keep(key, { status, body, route: route.path }, key.length + body.length, ctx.data);
      return reply.type(JSON_TYPE).send(body);
    };
    /**
     * The whole way: authenticate, check and build the input, run the service, serialise. `known`:
     * a context the handler already made (and looked its kept answer up with).
     */
    async function answer(
      request: FastifyRequest,
      reply: FastifyReply,
      known?: RequestContext,
    ): Promise<FastifyReply> {
      const ctx = known ?? (await contexts.build(contextRequest(request)));
      const key = keyOf(ctx, request);
      if (key === null)
        return sendComputed(
          reply,
          ctx,
          null,
          await route.handler(ctx, (await buildRestInput(route, request)) as object),
        );
      // An answer that may be kept: the counters first, so whatever the handler reads comes after them.
      const view = await ctx.data.ensureView();
      const kept = known ? undefined : answers.get(key, view);
      if (kept) return sendKept(reply, kept);
      const recipe = await recipeOf(request, reply);
      const computed = answerNow(recipe, ctx, key, answers);
      if (computed) return sendKept(reply, computed);
      // What it reads is noted only where the answer may be kept.
      return sendComputed(
        reply,
        ctx,
        key,
        await trackReads(ctx.data, () => route.handler(ctx, recipe.input as object)),
      );
    }

    app.route({
      method: route.method,
      url: route.path,
      config: { errorShape: route.errorShape } satisfies RestRouteConfig,
      schema: { response: { 200: route.response } },
      // A kept answer for a caller known from memory is sent without a promise or a microtask:
      // that is most reads, and the work left per request is then fastify's and Node's. So is one
      // computed again from data in memory, for a URL whose input is known valid.
      handler: (request: FastifyRequest, reply: FastifyReply) => {
        const ctx = cacheable ? contexts.buildNow(contextRequest(request)) : undefined;
        const key = ctx === undefined ? null : keyOf(ctx, request);
        const view = ctx?.data.view;
        if (ctx === undefined || key === null || view === undefined)
          return answer(request, reply, ctx);
        const kept = answers.get(key, view);
        if (kept) return sendKept(reply, kept);
        const recipe = recipes.get(request.url);
        const computed = recipe && answerNow(recipe, ctx, key, answers);
        return computed ? sendKept(reply, computed) : answer(request, reply, ctx);
      },
    });
  }
}
