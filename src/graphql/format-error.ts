import { ApolloServerErrorCode } from '@apollo/server/errors';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import type { Logger } from 'pino';
import { ErrorCode, ErrorWithCode, InternalError, ServiceUnavailableError } from '../errors';
import { isDatabaseUnavailable } from '../server/classify-error';
import type { ErrorRequestIds } from './error-request-ids';

/** Codes Apollo gives errors about the request itself (syntax, validation, variables): safe to show. */
const REQUEST_ERROR_CODES: ReadonlySet<unknown> = new Set(
  Object.values(ApolloServerErrorCode).filter(
    (code) => code !== ApolloServerErrorCode.INTERNAL_SERVER_ERROR,
  ),
);

export type ErrorVerdict =
  | { kind: 'coded'; error: ErrorWithCode }
  | { kind: 'request'; code: string }
  | { kind: 'unavailable' }
  | { kind: 'internal'; cause: unknown };

/**
 * Looks through the wrappers graphql-js and Apollo put around a thrown value (located errors,
 * "Context creation failed") for what it really is.
 */
export function judgeGraphQLError(error: unknown): ErrorVerdict {
  const chain: unknown[] = [error];
  for (
    let current = error;
    current instanceof GraphQLError && current.originalError && chain.length < 6;
  ) {
    current = current.originalError;
    chain.push(current);
  }
  // Our own error wins wherever it sits: wrappers copy its extensions (and code) but not its field errors.
  const coded = chain.find((item): item is ErrorWithCode => item instanceof ErrorWithCode);
  if (coded) return { kind: 'coded', error: coded };
  const code = error instanceof GraphQLError ? error.extensions.code : undefined;
  if (typeof code === 'string' && REQUEST_ERROR_CODES.has(code)) return { kind: 'request', code };
  const root = chain[chain.length - 1];
  if (isDatabaseUnavailable(root)) return { kind: 'unavailable' };
  return { kind: 'internal', cause: root };
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
export function createFormatError(
  logger: Logger,
  errorIds: ErrorRequestIds,
): (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError {
  return (formatted, error) => {
    const requestId = errorIds.of(error) ?? 'unknown';
    try {
      const verdict = judgeGraphQLError(error);
      switch (verdict.kind) {
        case 'coded':
          return render(verdict.error, formatted);
        case 'request':
          return {
            message: formatted.message,
            ...(formatted.locations ? { locations: formatted.locations } : {}),
            extensions: { code: verdict.code },
          };
        case 'unavailable':
          return render(new ServiceUnavailableError(), formatted);
        case 'internal':
          logger.error(
            { err: verdict.cause, requestId },
            'unexpected error in a GraphQL operation',
          );
          break;
        default:
          return assertNever(verdict);
      }
    } catch (formattingError) {
      try {
        logger.error({ err: formattingError, requestId }, 'formatError failed');
      } catch {
        // Logging must not turn a formatted error into a thrown one.
      }
    }
    return {
      ...render(new InternalError(requestId), formatted),
      extensions: { code: ErrorCode.INTERNAL_SERVER_ERROR },
    };
  };
}

function assertNever(value: never): never {
  throw new Error(`unexpected error verdict ${JSON.stringify(value)}`);
}
