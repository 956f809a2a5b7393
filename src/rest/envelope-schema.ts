/**
 * JSON Schema helpers for route `response` schemas: the documented success envelope plus the
 * route's own fields. fastify serialises with them, so a field missing here is dropped.
 */
export function envelopeSchema(
  properties: Record<string, unknown>,
  required: string[] = [],
): Record<string, unknown> {
  return {
    type: 'object',
    required: ['message', 'success', 'statusCode', ...required],
    properties: {
      message: { type: 'string' },
      success: { type: 'boolean' },
      statusCode: { type: 'integer' },
      ...properties,
    },
  };
}
