import { ErrorCode } from './error-code';
import { ErrorWithCode, FieldError } from './error-with-code';

/** Invalid input: a missing, malformed, unknown or out-of-range field. */
export class BadUserInputError extends ErrorWithCode {
  constructor(message: string, fieldErrors?: FieldError[]) {
    super(message, ErrorCode.BAD_USER_INPUT, { fieldErrors });
  }
}

/** No credentials, or credentials that are malformed, expired or badly signed. One message for all. */
export class UnauthenticatedError extends ErrorWithCode {
  constructor(
    message = 'Authentication required: send a valid token as "Authorization: Bearer <token>"',
  ) {
    super(message, ErrorCode.UNAUTHENTICATED, { headers: { 'WWW-Authenticate': 'Bearer' } });
  }
}

/** Valid credentials whose role may not perform the operation. */
export class ForbiddenError extends ErrorWithCode {
  constructor(message: string) {
    super(message, ErrorCode.FORBIDDEN);
  }
}

export class NotFoundError extends ErrorWithCode {
  constructor(message: string) {
    super(message, ErrorCode.NOT_FOUND);
  }
}

/** A known path called with a method it does not support. */
export class MethodNotAllowedError extends ErrorWithCode {
  constructor(method: string, path: string, allowed: string[]) {
    super(
      `Method ${method} is not allowed on ${path}; allowed: ${allowed.join(', ')}`,
      ErrorCode.METHOD_NOT_ALLOWED,
      {
        headers: { Allow: allowed.join(', ') },
      },
    );
  }
}

/** The request is valid but the current state forbids it (period not set, e-mail taken...). */
export class ConflictError extends ErrorWithCode {
  constructor(message: string) {
    super(message, ErrorCode.CONFLICT);
  }
}

/**
 * An Idempotency-Key whose first request is still being processed: its answer is not known yet.
 * Retrying with the same key later gets it (src/security/idempotency/).
 */
export class IdempotencyKeyInUseError extends ErrorWithCode {
  constructor(request: string, startedAt: Date) {
    super(
      `A request with this Idempotency-Key (${request}, started ${startedAt.toISOString()}) is still being processed: retry with the same key once it has finished to get its answer`,
      ErrorCode.CONFLICT,
      { headers: { 'Retry-After': '1' } },
    );
  }
}

/** An Idempotency-Key sent again with another request than the one it was first used for. */
export class IdempotencyKeyReusedError extends ErrorWithCode {
  constructor(request: string, firstRequest: string, firstUsedAt: Date) {
    super(
      `This Idempotency-Key was first used ${firstUsedAt.toISOString()} for ${firstRequest === request ? `${firstRequest} with another body` : firstRequest}; a key names one request: send a new key with a new request`,
      ErrorCode.UNPROCESSABLE_CONTENT,
    );
  }
}

/** The client did not send the whole request within the time budget; the connection is closed. */
export class RequestTimeoutError extends ErrorWithCode {
  constructor(message: string) {
    super(message, ErrorCode.REQUEST_TIMEOUT);
  }
}

export class PayloadTooLargeError extends ErrorWithCode {
  constructor(limitBytes: number) {
    super(
      `Request body is larger than the limit of ${limitBytes} bytes`,
      ErrorCode.PAYLOAD_TOO_LARGE,
    );
  }
}

/** The request target (path and query) is longer than the gateway serves. */
export class UriTooLongError extends ErrorWithCode {
  constructor(limitBytes: number) {
    super(`The URL is longer than the limit of ${limitBytes} bytes`, ErrorCode.URI_TOO_LONG);
  }
}

export class UnsupportedMediaTypeError extends ErrorWithCode {
  constructor(contentType: string | undefined) {
    super(
      `Request body must be JSON (Content-Type: application/json), got ${contentType ? `"${contentType}"` : 'no Content-Type'}`,
      ErrorCode.UNSUPPORTED_MEDIA_TYPE,
    );
  }
}

export class TooManyRequestsError extends ErrorWithCode {
  constructor(retryAfterSeconds: number) {
    super(`Rate limit reached; retry in ${retryAfterSeconds} s`, ErrorCode.TOO_MANY_REQUESTS, {
      headers: { 'Retry-After': String(retryAfterSeconds) },
    });
  }
}

/**
 * A service the gateway reads from (HubSpot) refused or failed the request; the message says
 * which and why, and never holds a credential.
 */
export class BadGatewayError extends ErrorWithCode {
  constructor(message: string) {
    super(message, ErrorCode.BAD_GATEWAY);
  }
}

export class ServiceUnavailableError extends ErrorWithCode {
  constructor(message = 'The database is unreachable; try again shortly') {
    super(message, ErrorCode.SERVICE_UNAVAILABLE, { headers: { 'Retry-After': '1' } });
  }
}

/** Why a write's outcome is not known: it outlived its time budget, or the database failed under it. */
export type UnknownOutcomeCause = { kind: 'time-out'; timeoutMs: number } | { kind: 'database' };

/**
 * A write that may or may not have been carried out: it outlived REQUEST_TIMEOUT_MS and carries on,
 * or the database stopped answering while it ran. Never "try again shortly": a blind retry could
 * carry it out twice. With an Idempotency-Key, a retry with the same key tells what happened.
 */
export class WriteOutcomeUnknownError extends ErrorWithCode {
  constructor(cause: UnknownOutcomeCause, keyed: boolean) {
    const what =
      cause.kind === 'time-out'
        ? `The write did not complete within ${cause.timeoutMs} ms and carries on: its outcome is not known yet`
        : 'The database stopped answering during the write: it may or may not have been carried out';
    const next = keyed
      ? 'retry with the same Idempotency-Key to learn it (409 while it is still running, then its answer)'
      : 'check whether it took effect before sending it again (sent with an Idempotency-Key header, a retry with the same key would tell)';
    super(`${what}; ${next}`, ErrorCode.SERVICE_UNAVAILABLE, {
      headers: keyed ? { 'Retry-After': '1' } : {},
    });
  }
}

/**
 * What a client sees for anything unexpected: a generic message and the request id to quote,
 * never the underlying error's text or stack (those go to the log).
 */
export class InternalError extends ErrorWithCode {
  constructor(requestId: string) {
    super(`Internal server error (request id ${requestId})`, ErrorCode.INTERNAL_SERVER_ERROR);
  }
}
