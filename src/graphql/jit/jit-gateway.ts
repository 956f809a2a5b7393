import type { GatewayInterface } from '@apollo/server-gateway-interface';
import type { GraphQLSchema } from 'graphql';
import type { RequestContext } from '../../context/request-context';
import { ExecutionGate } from './execution-gate';
import { JitExecutor } from './jit-executor';
import { trackReads } from '../../data/read-tracking';

/**
 * Apollo Server's gateway interface used for one local schema: Apollo keeps parsing, validation
 * (with its document cache), plugins (the answer cache among them), formatError and HTTP;
 * execution goes to JitExecutor, one computing at a time (ExecutionGate), noting the scopes it
 * reads for the answer cache. The schema never changes after start, so there are no updates to
 * announce.
 */
export function jitGateway(schema: GraphQLSchema): GatewayInterface {
  // Compiling costs more than one graphql-js run of the same document (12 ms for the explorer's
  // query, which then runs in 5-8 ms; up to 19 ms for 15 aliased pages): a query text seen once,
  // as every text of a flood is, runs on graphql-js and is compiled when it comes again.
  const executor = new JitExecutor(schema, { compileAt: 2 });
  const gate = new ExecutionGate();
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
          // Only a query's answer may be kept, so only a query's reads are noted.
          const execute = () =>
            request.operation === 'query'
              ? trackReads(request.contextValue.data, () => executor.execute(request))
              : executor.execute(request);
          return gate.run(execute);
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
