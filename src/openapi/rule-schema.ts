import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import type { JsonSchema } from './json-schema';

/**
 * What one class-validator rule says about the value, in JSON Schema words. Rules not listed
 * here add nothing (their checks still run; the schema is then looser than the server, never
 * stricter). `constraints` are the decorator's arguments as class-validator stores them.
 */
const RULES: Record<string, (constraints: unknown[]) => JsonSchema> = {
  isString: () => ({ type: 'string' }),
  isBoolean: () => ({ type: 'boolean' }),
  isInt: () => ({ type: 'integer' }),
  isNumber: () => ({ type: 'number' }),
  isArray: () => ({ type: 'array' }),
  isObject: () => ({ type: 'object' }),
  isIn: ([allowed]) => ({ enum: Array.isArray(allowed) ? [...allowed] : [] }),
  isEnum: ([entity]) => ({
    enum: entity && typeof entity === 'object' ? [...new Set(Object.values(entity))] : [],
  }),
  isEmail: () => ({ type: 'string', format: 'email' }),
  isUUID: () => ({ type: 'string', format: 'uuid' }),
  isISO8601: () => ({ type: 'string', format: 'date-time' }),
  isDateString: () => ({ type: 'string', format: 'date-time' }),
  isMongoId: () => ({ type: 'string', pattern: '^[0-9a-fA-F]{24}$' }),
  isNotEmpty: () => ({ minLength: 1 }),
  matches: ([pattern]) => ({
    type: 'string',
    pattern: pattern instanceof RegExp ? pattern.source : String(pattern),
  }),
  maxLength: ([max]) => ({ maxLength: max }),
  minLength: ([min]) => ({ minLength: min }),
  length: ([min, max]) => ({ minLength: min, ...(max === undefined ? {} : { maxLength: max }) }),
  min: ([min]) => ({ minimum: min }),
  max: ([max]) => ({ maximum: max }),
  isPositive: () => ({ exclusiveMinimum: 0 }),
  isNegative: () => ({ exclusiveMaximum: 0 }),
  arrayMinSize: ([min]) => ({ minItems: min }),
  arrayMaxSize: ([max]) => ({ maxItems: max }),
  arrayNotEmpty: () => ({ minItems: 1 }),
  arrayUnique: () => ({ uniqueItems: true }),
  // The project's own rules (src/validation/rules.ts).
  isCurrencyCode: () => ({
    type: 'string',
    pattern: '^[A-Za-z]{3}$',
    description: 'ISO 4217 alphabetic currency code, any case (stored upper-case)',
  }),
};

/** The schema fragment of one rule; empty for rules that have no JSON Schema counterpart. */
export function ruleSchema(rule: ValidationMetadata): JsonSchema {
  const build = rule.name === undefined ? undefined : RULES[rule.name];
  return build ? build(rule.constraints ?? []) : {};
}
