export { validateInput, invalidInput } from './validate-input';
export type { InputSource, ValidateInputOptions } from './validate-input';
export { inspectRaw } from './inspect-raw';
export { VALIDATOR_OPTIONS } from './options';
export { INPUT_LIMITS, VALUE_BUDGET, valueBudget } from './limits';
export * from './rules';
export { coerceQuery } from './coerce-query';
export { validateGraphQLArg } from './validate-graphql-arg';
