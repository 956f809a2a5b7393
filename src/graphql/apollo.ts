import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginLandingPageDisabled,
} from '@apollo/server/plugin/disabled';
import { fastifyApolloHandler } from '@as-integrations/fastify';
import type { FastifyInstance } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import type { AuthenticatedContext } from '../context/request-context';
import type { RestRouteConfig } from '../rest/register-routes';
import type { ContextBuilder } from '../server/context-builder';
import { GRAPHQL_LIMITS, graphqlLimitRules } from '../security/graphql-limits';
import { graphqlGuardPlugin, type IntrospectionPolicy } from '../security/graphql-guard.plugin';
import { createGraphQLContext } from './context';
import { createFormatError } from './format-error';
import { jitGateway } from './jit/jit-gateway';
import type { AnswerCache, KeptGraphQLAnswer } from '../data/answer-cache';
import { answerCachePlugin } from './answer-cache.plugin';
import { ErrorRequestIds } from './error-request-ids';
import { unavailableStatusPlugin } from './unavailable-status.plugin';
import type { Idempotency } from '../security/idempotency/idempotency';
import { idempotencyPlugin } from '../security/idempotency/idempotency.plugin';

/**
 * Starts Apollo Server over the schema and mounts it at `/graphql` (POST, and GET for queries).
 * The landing page is off (the explorer is served at /graphiql from local assets), stack traces
 * never reach answers, and Apollo stops with the app.
 */
export async function mountGraphQL(
  app: FastifyInstance,
  schema: GraphQLSchema,
  contexts: ContextBuilder,
  logger: Logger,
  options: {
    introspection: IntrospectionPolicy;
    answers: AnswerCache<KeptGraphQLAnswer>;
    /** Plugins run after the gateway's own (the app's metrics). */
    plugins?: ApolloServerPlugin<AuthenticatedContext>[];
    /** False: every operation runs on graphql-js, none compiled (tracing). Default true. */
    compiled?: boolean;
    idempotency: Idempotency;
  },
): Promise<void> {
  const errorIds = new ErrorRequestIds();
  const apollo = new ApolloServer<AuthenticatedContext>({
    // Compiled execution (graphql-jit) with graphql-js as the fallback (jit/jit-executor.ts).
    gateway: jitGateway(schema, { compiled: options.compiled ?? true }),
    formatError: createFormatError(logger, errorIds),
    includeStacktraceInErrorResponses: false,
    // Abuse limits (src/security): token count at parse time, depth/aliases/directives as
    // validation rules, introspection policy and cost before execution; no "Did you mean".
    parseOptions: { maxTokens: GRAPHQL_LIMITS.maxTokens },
    validationRules: graphqlLimitRules(),
    hideSchemaDetailsFromClientErrors: true,
    introspection: options.introspection !== 'off',
    csrfPrevention: true,
    allowBatchedHttpRequests: false,
    // No automatic persisted queries: no client of ours sends hashes, and a store of documents any
    // caller can fill is memory and surface nobody needs. A hash-only request answers
    // PERSISTED_QUERY_NOT_SUPPORTED.
    persistedQueries: false,
    // No cache hints are used: the cache-control plugin would only cost a hook per field.
    // The answer cache after the guard: a kept answer is looked up only once the guard let the
    // operation through. Mutations' Idempotency-Key last: it reads the status the others set.
    plugins: [
      ApolloServerPluginLandingPageDisabled(),
      ApolloServerPluginCacheControlDisabled(),
      unavailableStatusPlugin(),
      graphqlGuardPlugin(options),
      errorIds.plugin(),
      answerCachePlugin(options.answers),
      ...(options.plugins ?? []),
      idempotencyPlugin(options.idempotency),
    ],
    logger: logger.child({ component: 'apollo' }),
    // The app owns the process's signals (server/shutdown.ts): it drains requests, then stops
    // Apollo through fastify's onClose. Apollo's own handlers would stop it first and re-raise
    // the signal, cutting in-flight requests and exiting 130/143.
    stopOnTerminationSignals: false,
  });
  await apollo.start();
  const handler = fastifyApolloHandler(apollo, {
    context: createGraphQLContext(contexts, errorIds, options.idempotency),
  });
  app.route({
    method: ['GET', 'POST'],
    url: '/graphql',
    config: { graphql: true } satisfies RestRouteConfig,
    handler: (request, reply) => handler.call(app, request as never, reply as never),
  });
  app.addHook('onClose', async () => {
    await apollo.stop();
  });
}
