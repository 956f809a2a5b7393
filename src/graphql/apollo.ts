import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { fastifyApolloHandler } from '@as-integrations/fastify';
import type { FastifyInstance } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import type { RequestContext } from '../context/request-context';
import type { RestRouteConfig } from '../rest/register-routes';
import type { ContextBuilder } from '../server/context-builder';
import { createGraphQLContext } from './context';
import { createFormatError } from './format-error';
import { graphqlRequestScope } from './request-scope';
import { unavailableStatusPlugin } from './unavailable-status.plugin';

/**
 * Starts Apollo Server over the schema and mounts it at `/graphql` (POST, and GET for queries).
 * The landing page is off (the explorer is served at /graphiql from local assets), stack traces
 * never reach answers, and Apollo stops with the app.
 */
export async function mountGraphQL(app: FastifyInstance, schema: GraphQLSchema, contexts: ContextBuilder, logger: Logger): Promise<void> {
  const apollo = new ApolloServer<RequestContext>({
    schema,
    formatError: createFormatError(logger),
    includeStacktraceInErrorResponses: false,
    plugins: [ApolloServerPluginLandingPageDisabled(), unavailableStatusPlugin()],
    logger: logger.child({ component: 'apollo' }),
  });
  await apollo.start();
  const handler = fastifyApolloHandler(apollo, { context: createGraphQLContext(contexts) });
  app.route({
    method: ['GET', 'POST'],
    url: '/graphql',
    config: { graphql: true } satisfies RestRouteConfig,
    // The request id is scoped for formatError, which Apollo calls without the context.
    handler: (request, reply) =>
      graphqlRequestScope.run({ requestId: request.id }, () => handler.call(app, request as never, reply as never)),
  });
  app.addHook('onClose', async () => {
    await apollo.stop();
  });
}
