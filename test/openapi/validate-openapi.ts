import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

export interface OpenApiValidation {
  valid: boolean;
  /** The OpenAPI version the validator recognised, e.g. `3.1`. */
  version: string;
  errors: unknown;
}

/** Runs `@seriousme/openapi-schema-validator` on a document (in a child Node process, it is ESM-only). */
export function validateOpenApi(document: unknown): OpenApiValidation {
  const output = execFileSync(process.execPath, [join(__dirname, 'run-openapi-validator.mjs')], {
    input: JSON.stringify(document),
    encoding: 'utf8',
  });
  return JSON.parse(output) as OpenApiValidation;
}
