import { getMetadataStorage, validate } from 'class-validator';
import { formatValidationErrors } from './format-validation-errors';
import { inspectRaw } from './inspect-raw';
import { VALIDATOR_OPTIONS } from './options';
import { invalidInput } from './validate-input';

function hasRules(value: object): boolean {
  return (
    getMetadataStorage().getTargetValidationMetadatas(value.constructor, '', true, false).length > 0
  );
}

/**
 * type-graphql `validateFn`: the same checks as REST inputs. GraphQL already rejects unknown
 * fields and wrong scalar types, but JSON scalars and strings can still carry `$` keys,
 * prototype keys, NaN, NUL bytes or over-long text; then the class rules run with the shared options.
 */
export async function validateGraphQLArg(argValue: unknown): Promise<void> {
  const rawErrors = inspectRaw(argValue);
  if (rawErrors.length > 0) throw invalidInput('graphql', rawErrors);
  const items = Array.isArray(argValue) ? argValue : [argValue];
  for (const item of items) {
    if (item === null || typeof item !== 'object' || item.constructor === Object || !hasRules(item))
      continue;
    const errors = await validate(item, VALIDATOR_OPTIONS);
    if (errors.length > 0) throw invalidInput('graphql', formatValidationErrors(errors));
  }
}
