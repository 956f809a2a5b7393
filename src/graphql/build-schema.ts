import { DateTimeResolver } from 'graphql-scalars';
import type { GraphQLSchema } from 'graphql';
import { buildSchema } from 'type-graphql';
import { VALIDATOR_OPTIONS, validateGraphQLArg } from '../validation';
import { RESOLVERS } from './resolvers';

/**
 * The gateway's one GraphQL schema, built from RESOLVERS. Arguments go through the same
 * validation as REST inputs (`validateFn`), with the shared class-validator options.
 */
export function buildGatewaySchema(): Promise<GraphQLSchema> {
  return buildSchema({
    resolvers: RESOLVERS,
    scalarsMap: [{ type: Date, scalar: DateTimeResolver }],
    validate: VALIDATOR_OPTIONS,
    validateFn: (argValue) => validateGraphQLArg(argValue),
  });
}
