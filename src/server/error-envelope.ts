import type { ErrorWithCode } from '../errors';
import type { RouteDefinition } from '../rest/route-definition';

/** The documented error envelope: `{ message, success: false, statusCode, errors? }`. */
export function errorEnvelope(error: ErrorWithCode): Record<string, unknown> {
  return {
    message: error.message,
    success: false,
    statusCode: error.status,
    ...(error.fieldErrors && error.fieldErrors.length > 0 ? { errors: error.fieldErrors } : {}),
  };
}

/** The envelope where the route wants it: at the root, or under `status` beside an empty list. */
export function shapeErrorBody(error: ErrorWithCode, shape: RouteDefinition['errorShape']): Record<string, unknown> {
  const envelope = errorEnvelope(error);
  if (shape?.kind === 'status') return { [shape.emptyKey]: [], status: envelope };
  return envelope;
}
