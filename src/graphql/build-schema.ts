import { DateTimeResolver } from 'graphql-scalars';
import type { GraphQLSchema } from 'graphql';
import { buildSchema } from 'type-graphql';
import { VALIDATOR_OPTIONS, validateGraphQLArg } from '../validation';
import { RESOLVERS } from './resolvers';

/**
 * The gateway's one GraphQL schema, built from RESOLVERS. Arguments go through the same
 * validation as REST inputs (`validateFn`), with the shared class-validator options.
 *
 * Every object type is declared with `simpleResolvers: true`: a plain field is read straight off
 * its object (graphql-jit inlines the read) rather than through type-graphql's per-field
 * middleware wrapper, which would build a resolve info and closures for each value. The gateway
 * has no use for the wrapper: no `@Authorized` fields, no global middlewares; role rules live in
 * the services the field resolvers call. The explorer's dashboard has over a thousand plain
 * values, so this halves the memory a dashboard computed afresh allocates.
 * test/graphql/plain-fields.test.ts holds every type to it.
 */
export function buildGatewaySchema(): Promise<GraphQLSchema> {
  return buildSchema({
    resolvers: RESOLVERS,
    scalarsMap: [{ type: Date, scalar: DateTimeResolver }],
    validate: VALIDATOR_OPTIONS,
    validateFn: (argValue) => validateGraphQLArg(argValue),
    // Every subscription makes its own stream (`subscribe`, src/graphql/subscriptions): none uses
    // topics, but type-graphql asks for a PubSub once the schema has a subscription.
    pubSub: {
      publish: () => {
        throw new Error('no subscription publishes to topics');
      },
      subscribe: () => {
        throw new Error('no subscription reads topics');
      },
    },
  });
}
