import { ErrorCode, HTTP_STATUS } from '../errors/error-code';
import type { RouteDefinition } from '../rest/route-definition';
import type { JsonSchema } from './json-schema';

/** One documented error answer: its component name and what it means for a client. */
interface ErrorResponseSpec {
  name: string;
  description: string;
  headers?: Record<string, { description: string; schema: JsonSchema }>;
}

/** Every client-facing error code, as an OpenAPI response (the same table drives REST and GraphQL). */
export const ERROR_RESPONSES: Record<ErrorCode, ErrorResponseSpec> = {
  [ErrorCode.BAD_USER_INPUT]: {
    name: 'BadRequest',
    description:
      'Malformed JSON, a missing, invalid, unknown or out-of-range field, or a `$`-prefixed key; `errors` names each field',
  },
  [ErrorCode.GRAPHQL_VALIDATION_FAILED]: {
    name: 'GraphQLValidationFailed',
    description: 'The GraphQL operation does not validate against the schema',
  },
  [ErrorCode.UNAUTHENTICATED]: {
    name: 'Unauthorized',
    description: 'Missing, malformed, expired or badly signed bearer token',
    headers: { 'WWW-Authenticate': { description: 'Always `Bearer`', schema: { type: 'string' } } },
  },
  [ErrorCode.FORBIDDEN]: {
    name: 'Forbidden',
    description: 'The token is valid but its role may not do this',
  },
  [ErrorCode.NOT_FOUND]: {
    name: 'NotFound',
    description: 'The thing named does not exist, or the setting or target was never set',
  },
  [ErrorCode.METHOD_NOT_ALLOWED]: {
    name: 'MethodNotAllowed',
    description: 'Known path, unsupported method',
    headers: {
      Allow: { description: 'The methods the path supports', schema: { type: 'string' } },
    },
  },
  [ErrorCode.CONFLICT]: {
    name: 'Conflict',
    description:
      'The current state forbids it (period or currency not set yet, e-mail taken, ...), or the request first sent with this Idempotency-Key is still being processed',
  },
  [ErrorCode.UNPROCESSABLE_CONTENT]: {
    name: 'UnprocessableContent',
    description:
      'The Idempotency-Key was first used for another request (another method, path or body)',
  },
  [ErrorCode.REQUEST_TIMEOUT]: {
    name: 'RequestTimeout',
    description:
      'The request body did not arrive within the time budget (REQUEST_TIMEOUT_MS); the connection is closed',
  },
  [ErrorCode.PAYLOAD_TOO_LARGE]: {
    name: 'PayloadTooLarge',
    description: 'The body is over the limit (1 MiB by default)',
  },
  [ErrorCode.URI_TOO_LONG]: {
    name: 'UriTooLong',
    description: 'The URL (path and query) is over 8 KiB',
  },
  [ErrorCode.UNSUPPORTED_MEDIA_TYPE]: {
    name: 'UnsupportedMediaType',
    description: 'The body is not JSON',
  },
  [ErrorCode.TOO_MANY_REQUESTS]: {
    name: 'TooManyRequests',
    description: 'Rate limit hit',
    headers: { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } } },
  },
  [ErrorCode.INTERNAL_SERVER_ERROR]: {
    name: 'InternalServerError',
    description: 'Unexpected; the message quotes a request id, never a stack trace',
  },
  [ErrorCode.BAD_GATEWAY]: {
    name: 'BadGateway',
    description:
      'HubSpot refused the token or kept failing; the message says which request and why',
  },
  [ErrorCode.SERVICE_UNAVAILABLE]: {
    name: 'ServiceUnavailable',
    description:
      'The database is unreachable, or the request outlived its time budget; for a write, the message says whether it was carried out, or that its outcome is not known yet',
    headers: { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } } },
  },
};

/** A write that takes an Idempotency-Key (src/security/idempotency/): every one but those refusing it. */
export function takesIdempotencyKey(route: RouteDefinition): boolean {
  return route.method !== 'GET' && route.authenticated && route.refusesIdempotencyKey === undefined;
}

/**
 * The error codes a route can answer with: what it declares in `errors` plus what every route of
 * its kind can give, in HTTP status order.
 */
export function routeErrorCodes(route: RouteDefinition): ErrorCode[] {
  const codes = new Set<ErrorCode>(
    route.errors ?? (route.path.includes(':') ? [ErrorCode.NOT_FOUND] : []),
  );
  const takesBody = route.method !== 'GET' && route.input !== undefined;
  if (route.input !== undefined || takesBody) codes.add(ErrorCode.BAD_USER_INPUT);
  if (takesBody) {
    codes.add(ErrorCode.PAYLOAD_TOO_LARGE);
    codes.add(ErrorCode.UNSUPPORTED_MEDIA_TYPE);
  }
  if (route.authenticated) {
    codes.add(ErrorCode.UNAUTHENTICATED);
    codes.add(ErrorCode.FORBIDDEN);
    codes.add(ErrorCode.SERVICE_UNAVAILABLE);
  }
  if (takesIdempotencyKey(route)) {
    codes.add(ErrorCode.BAD_USER_INPUT);
    codes.add(ErrorCode.CONFLICT);
    codes.add(ErrorCode.UNPROCESSABLE_CONTENT);
  }
  codes.add(ErrorCode.TOO_MANY_REQUESTS);
  codes.add(ErrorCode.INTERNAL_SERVER_ERROR);
  return [...codes].sort((a, b) => HTTP_STATUS[a] - HTTP_STATUS[b]);
}
