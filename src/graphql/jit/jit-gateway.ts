import type { GatewayInterface } from '@apollo/server-gateway-interface';
import type { GraphQLSchema } from 'graphql';
import { JitExecutor } from './jit-executor';

/**
 * Apollo Server's gateway interface used for one local schema: Apollo keeps parsing, validation
 * (with its document cache), plugins, formatError and HTTP; execution goes to JitExecutor. The
 * schema never changes after start, so there are no updates to announce.
 */
export function jitGateway(schema: GraphQLSchema): GatewayInterface {
  const executor = new JitExecutor(schema);
  return {
    async load() {
      return {
        executor: (requestContext) =>
          executor.execute({
            document: requestContext.document,
            operationName: requestContext.operationName,
            operation: requestContext.operation.operation,
            variables: requestContext.request.variables,
            contextValue: requestContext.context,
          }),
      };
    },
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: schema, coreSupergraphSdl: '' });
      return () => undefined;
    },
    async stop() {},
  };
}
