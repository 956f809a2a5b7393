import type { GatewayInterface } from '@apollo/server-gateway-interface';
import type { GraphQLSchema } from 'graphql';
import type { RequestContext } from '../../context/request-context';
import { JitExecutor } from './jit-executor';
import type { KeptAnswers } from './kept-answers';

/**
 * Apollo Server's gateway interface used for one local schema: Apollo keeps parsing, validation
 * (with its document cache), plugins, formatError and HTTP; execution goes to JitExecutor, behind
 * the kept answers of repeated queries. The schema never changes after start, so there are no
 * updates to announce.
 */
export function jitGateway(schema: GraphQLSchema, kept: KeptAnswers): GatewayInterface {
  const executor = new JitExecutor(schema);
  return {
    async load() {
      return {
        executor: (requestContext) => {
          const request = {
            source: requestContext.source,
            document: requestContext.document,
            operationName: requestContext.operationName,
            operation: requestContext.operation.operation,
            variables: requestContext.request.variables,
            contextValue: requestContext.context as RequestContext,
          };
          return kept.execute(request, () => executor.execute(request));
        },
      };
    },
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: schema, coreSupergraphSdl: '' });
      return () => undefined;
    },
    async stop() {},
  };
}
