import {
  BadUserInputError,
  ConflictError,
  ErrorWithCode,
  InternalError,
  NotFoundError,
  PayloadTooLargeError,
  ServiceUnavailableError,
  UnsupportedMediaTypeError,
} from '../errors';

/** The client-facing error for anything thrown, and whether it was unexpected (to be logged in full). */
export interface ClassifiedError {
  error: ErrorWithCode;
  unexpected: boolean;
}

const UNAVAILABLE_NAMES = new Set([
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoServerSelectionError',
  'MongooseServerSelectionError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongoPoolClosedError',
  'MongoPoolClearedError',
  // A pool cleared because its server's monitor timed out (a subclass naming itself apart).
  'PoolClearedOnNetworkError',
  'MongoServerClosedError',
]);

/**
 * Socket errors of a connection the database closed. The driver wraps most in MongoNetworkError,
 * but a write racing the server's close surfaces as the socket's own error (EPIPE).
 */
const CLOSED_SOCKET_CODES = new Set(['EPIPE', 'ECONNRESET', 'ECONNABORTED', 'ENOTCONN']);

/** True when the database cannot be reached (as opposed to refusing a command). */
export function isDatabaseUnavailable(error: unknown): boolean {
  // Duck-typed rather than `instanceof Error`: errors raised by Node's own socket code may come
  // from another realm than the code that catches them (a test runner's sandbox, a vm context).
  let current = error as
    { name?: unknown; message?: unknown; code?: unknown; cause?: unknown } | null | undefined;
  for (
    let depth = 0;
    typeof current === 'object' && current !== null && depth < 5;
    current = current.cause as typeof current, depth += 1
  ) {
    if (UNAVAILABLE_NAMES.has(String(current.name))) return true;
    if (CLOSED_SOCKET_CODES.has(String(current.code))) return true;
    // mongoose queues operations while disconnected and fails them with this text after a timeout.
    if (
      current.name === 'MongooseError' &&
      /buffering timed out|Client must be connected/.test(String(current.message))
    )
      return true;
  }
  return false;
}

interface HttpLikeError {
  statusCode?: number;
  code?: unknown;
  message?: string;
}

/**
 * Maps any thrown value to the one error model. ErrorWithCode passes through; fastify's own
 * errors (body limit, media type, bad JSON) and MongoDB failures (unreachable → 503, duplicate
 * key → 409) are translated; everything else is an internal error with a generic message.
 */
export function classifyError(
  error: unknown,
  requestId: string,
  context: { bodyLimit: number; contentType?: string },
): ClassifiedError {
  if (error instanceof ErrorWithCode) return { error, unexpected: false };
  if (isDatabaseUnavailable(error))
    return { error: new ServiceUnavailableError(), unexpected: false };
  const like = (typeof error === 'object' && error !== null ? error : {}) as HttpLikeError;
  if (like.code === 11000) {
    return {
      error: new ConflictError('A record with the same unique value already exists'),
      unexpected: false,
    };
  }
  if (typeof like.code === 'string' && like.code.startsWith('FST_')) {
    switch (like.statusCode) {
      case 413:
        return { error: new PayloadTooLargeError(context.bodyLimit), unexpected: false };
      case 415:
        return { error: new UnsupportedMediaTypeError(context.contentType), unexpected: false };
      case 404:
        return { error: new NotFoundError('Not found'), unexpected: false };
      case 400:
        return {
          error: new BadUserInputError(`Bad request: ${like.message ?? 'malformed request'}`),
          unexpected: false,
        };
      default:
        break;
    }
  }
  return { error: new InternalError(requestId), unexpected: true };
}
