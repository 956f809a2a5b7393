/** A JSON Schema (2020-12, the dialect of OpenAPI 3.1) as plain data. */
export type JsonSchema = Record<string, unknown>;

/** An object schema split into what OpenAPI needs separately: each property and which are required. */
export interface ObjectSchemaParts {
  properties: Record<string, JsonSchema>;
  required: string[];
}

/** `{ type: object, properties, required, additionalProperties: false }`: unknown fields are rejected. */
export function objectSchema(parts: ObjectSchemaParts): JsonSchema {
  return {
    type: 'object',
    properties: parts.properties,
    ...(parts.required.length > 0 ? { required: parts.required } : {}),
    additionalProperties: false,
  };
}
