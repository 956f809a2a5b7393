import type { GatewayInterface } from '@apollo/server-gateway-interface';
import type { GraphQLSchema } from 'graphql';
import { JitExecutor } from './jit-executor';

/**
 * Apollo Server's documented `gateway` hook used for one local schema: Apollo keeps parsing,
 * validation (with its document cache), plugins (the answer cache among them), formatError and
 * HTTP; execution goes to JitExecutor. The schema never changes after start, so there are no
 * updates to announce. `compiled: false` runs every operation on graphql-js.
 */
export function jitGateway(
  schema: GraphQLSchema,
  options: { compiled?: boolean } = {},
): GatewayInterface {
  // Compiling costs more than one graphql-js run of the same document: a query text seen once,
  // as every text of a flood is, runs on graphql-js and is compiled when it comes again.
  const executor = new JitExecutor(schema, {
    compileAt: options.compiled === false ? Infinity : 2,
  });
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
