/** Internal to the JIT executor: graphql-jit's errors as graphql-js's own. */
import { GraphQLError } from 'graphql';

/**
 * graphql-jit raises its own GraphQLError look-alike: `extensions` is undefined when the thrown
 * error has none (Apollo's error normalisation then fails and answers a bare "Internal server
 * error", bypassing formatError), and `locations` comes computed rather than from AST nodes. This
 * rebuilds it as graphql-js's GraphQLError with the same message, locations, path, original error
 * and extensions, which is what graphql-js's locatedError gives for the same failure.
 */
export function asGraphQLJsError(error: GraphQLError): GraphQLError {
  const rebuilt = new GraphQLError(error.message, {
    path: error.path,
    originalError: error.originalError,
    extensions: error.extensions ?? undefined,
  });
  (rebuilt as { locations: GraphQLError['locations'] }).locations = error.locations;
  return rebuilt;
}
