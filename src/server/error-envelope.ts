import type { ErrorWithCode } from '../errors';
import type { RestRouteConfig } from '../rest/register-routes';

/** The documented error envelope: `{ message, success: false, statusCode, errors? }`. */
export function errorEnvelope(error: ErrorWithCode): Record<string, unknown> {
  return {
    message: error.message,
    success: false,
    statusCode: error.status,
    ...(error.fieldErrors && error.fieldErrors.length > 0 ? { errors: error.fieldErrors } : {}),
  };
}

/**
 * The error body the route speaks: a GraphQL `{ errors }` answer on /graphql, else the envelope at
 * the root or under `status` beside an empty list.
 */
export function shapeErrorBody(
  error: ErrorWithCode,
  route: RestRouteConfig | undefined,
): Record<string, unknown> {
  if (route?.graphql) {
    const extensions = {
      code: error.code,
      ...(error.fieldErrors ? { errors: error.fieldErrors } : {}),
    };
    return { errors: [{ message: error.message, extensions }] };
  }
  const envelope = errorEnvelope(error);
  const shape = route?.errorShape;
  if (shape?.kind === 'status') return { [shape.emptyKey]: [], status: envelope };
  return envelope;
}
