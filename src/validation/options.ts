import type { ValidatorOptions } from 'class-validator';

/**
 * The one set of class-validator options, for REST inputs and type-graphql (`validate`) alike:
 * unknown fields are an error, never silently dropped. Every input property therefore needs at
 * least one class-validator decorator (`@IsOptional()` counts).
 */
export const VALIDATOR_OPTIONS: ValidatorOptions = {
  whitelist: true,
  forbidNonWhitelisted: true,
  forbidUnknownValues: true,
  // One message per field: composed rules (string, then pattern) would otherwise repeat each other.
  stopAtFirstError: true,
  validationError: { target: true, value: true },
};
