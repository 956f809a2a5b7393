import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { BadUserInputError, type FieldError } from '../errors';
import { coerceQuery } from './coerce-query';
import type { ClassType } from './class-type';
import { describeValue } from './describe-value';
import {
  declaredFields,
  formatValidationErrors,
  unknownFieldMessage,
} from './format-validation-errors';
import { inspectRaw } from './inspect-raw';
import { VALIDATOR_OPTIONS } from './options';

export type InputSource = 'query' | 'body' | 'graphql';

export interface ValidateInputOptions {
  /** `query` turns clean numeric/boolean/list strings into the declared types first. */
  source: InputSource;
}

const LABEL: Record<InputSource, string> = {
  query: 'query parameters',
  body: 'request body',
  graphql: 'arguments',
};

/** One BAD_USER_INPUT error listing every field problem, the first ones also in the message. */
export function invalidInput(source: InputSource, fieldErrors: FieldError[]): BadUserInputError {
  const shown = fieldErrors.slice(0, 3).map((e) => `${e.field}: ${e.message}`);
  const more = fieldErrors.length > 3 ? ` (and ${fieldErrors.length - 3} more)` : '';
  return new BadUserInputError(`Invalid ${LABEL[source]}: ${shown.join('; ')}${more}`, fieldErrors);
}

/** At most this many unknown fields are named in one answer. */
const MAX_UNKNOWN_LISTED = 20;

/**
 * The fields of `input` that `cls` does not declare, as class-validator's whitelist would name
 * them, found with one pass over the keys: class-transformer's `plainToInstance` does work that
 * grows with the square of an object's keys, so unknown fields are refused before it runs.
 */
function unknownFields(cls: ClassType, input: object): FieldError[] {
  const allowed = declaredFields(cls);
  const declared = new Set(allowed);
  const errors: FieldError[] = [];
  for (const key of Object.keys(input)) {
    if (declared.has(key)) continue;
    errors.push({ field: key, message: unknownFieldMessage(allowed) });
    if (errors.length === MAX_UNKNOWN_LISTED) break;
  }
  return errors;
}

/**
 * Validates a raw input against a class-validator decorated class and returns an instance of it.
 * The raw value is inspected first (no `$` keys, no prototype keys, no NaN/Infinity, no NUL, no
 * over-long strings, no object wider than the limit), fields the class does not declare are
 * refused, then it is transformed (nested classes via `@Type`) and validated with the shared
 * options. Throws BadUserInputError naming each field path, what was expected and what came.
 */
export async function validateInput<T extends object>(
  cls: new () => T,
  raw: unknown,
  options: ValidateInputOptions,
): Promise<T> {
  const rawErrors = inspectRaw(raw);
  if (rawErrors.length > 0) throw invalidInput(options.source, rawErrors);
  const input = raw === undefined || raw === null ? {} : raw;
  if (typeof input !== 'object' || Array.isArray(input)) {
    throw invalidInput(options.source, [
      { field: '(input)', message: `expected a JSON object, got ${describeValue(input)}` },
    ]);
  }
  const unknown = unknownFields(cls, input);
  if (unknown.length > 0) throw invalidInput(options.source, unknown);
  const plain =
    options.source === 'query' ? coerceQuery(cls, input as Record<string, unknown>) : input;
  const instance = plainToInstance(cls, plain, { exposeDefaultValues: true });
  const errors = await validate(instance, VALIDATOR_OPTIONS);
  if (errors.length > 0) throw invalidInput(options.source, formatValidationErrors(errors));
  return instance;
}
