import { ApolloServerErrorCode, unwrapResolverError } from '@apollo/server/errors';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import type { Logger } from 'pino';
import { ErrorCode, ErrorWithCode, InternalError, ServiceUnavailableError } from '../errors';
import { isDatabaseUnavailable } from '../server/classify-error';
import { graphqlRequestScope } from './request-scope';

/** Codes Apollo gives errors about the request itself (syntax, validation, variables): safe to show. */
const REQUEST_ERROR_CODES: ReadonlySet<unknown> = new Set(
  Object.values(ApolloServerErrorCode).filter((code) => code !== ApolloServerErrorCode.INTERNAL_SERVER_ERROR),
);

function isRequestErrorCode(code: unknown): boolean {
  return REQUEST_ERROR_CODES.has(code);
}

function render(error: ErrorWithCode, formatted: GraphQLFormattedError): GraphQLFormattedError {
  return {
    message: error.message,
    ...(formatted.locations ? { locations: formatted.locations } : {}),
    ...(formatted.path ? { path: formatted.path } : {}),
    extensions: { code: error.code, ...(error.fieldErrors ? { errors: error.fieldErrors } : {}) },
  };
}

/**
 * Apollo `formatError`, the GraphQL edge where internals are hidden: our ErrorWithCode passes
 * with its code; errors graphql-js or Apollo raised about the request itself (syntax, validation,
 * variables) pass as they are; an unreachable database is SERVICE_UNAVAILABLE; anything else is
 * logged and becomes INTERNAL_SERVER_ERROR with a generic message and the request id. It cannot
 * throw: a failure inside falls back to the generic error.
 */
export function createFormatError(logger: Logger): (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError {
  return (formatted, error) => {
    const requestId = graphqlRequestScope.getStore()?.requestId ?? 'unknown';
    try {
      const original = unwrapResolverError(error);
      if (original instanceof ErrorWithCode) return render(original, formatted);
      if (isDatabaseUnavailable(original)) return render(new ServiceUnavailableError(), formatted);
      if (original instanceof GraphQLError && isRequestErrorCode(original.extensions.code)) {
        return { message: formatted.message, ...(formatted.locations ? { locations: formatted.locations } : {}), extensions: { code: original.extensions.code } };
      }
      logger.error({ err: original, requestId }, 'unexpected error in a GraphQL operation');
    } catch (formattingError) {
      logger.error({ err: formattingError, requestId }, 'formatError failed');
    }
    return { ...render(new InternalError(requestId), formatted), extensions: { code: ErrorCode.INTERNAL_SERVER_ERROR } };
  };
}
