/**
 * Internal to the pipeline tests: runs GraphQL operations in process against the gateway's schema,
 * with a fresh request context (and so fresh loaders) per operation, as the server does.
 */
import { graphql, type ExecutionResult, type GraphQLSchema } from 'graphql';
import type { Principal } from '../../../src/auth/principal';
import { buildGatewaySchema } from '../../../src/graphql/build-schema';
import { requestContext } from './context';
import { ADMIN } from './database';

let schema: Promise<GraphQLSchema> | null = null;

export async function runGraphQL(
  source: string,
  variableValues?: Record<string, unknown>,
  principal: Principal = ADMIN,
): Promise<ExecutionResult> {
  schema ??= buildGatewaySchema();
  const contextValue = requestContext(principal);
  return graphql({ schema: await schema, source, variableValues, contextValue });
}

/** The data of a successful operation; fails the test with the errors otherwise. */
export async function queryData<T = Record<string, any>>(
  source: string,
  variableValues?: Record<string, unknown>,
): Promise<T> {
  const result = await runGraphQL(source, variableValues);
  if (result.errors?.length)
    throw new Error(`GraphQL errors: ${result.errors.map((e) => e.message).join('; ')}`);
  return result.data as T;
}
