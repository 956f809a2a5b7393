// Validates the OpenAPI document read from stdin against the official OpenAPI 3.1 schema and
// prints `{ valid, version, errors }`. A separate Node process because the validator is an
// ES module and jest runs CommonJS.
import { Validator } from '@seriousme/openapi-schema-validator';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const validator = new Validator();
const result = await validator.validate(JSON.parse(Buffer.concat(chunks).toString('utf8')));
process.stdout.write(
  JSON.stringify({
    valid: result.valid,
    version: validator.version,
    errors: result.errors ?? null,
  }),
);
