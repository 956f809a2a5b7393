import { getMetadataStorage, type ValidationError } from 'class-validator';
import type { FieldError } from '../errors';
import { describeValue } from './describe-value';
import { joinPath } from './field-path';
import type { ClassType } from './class-type';

/** The fields an input class declares (those with at least one class-validator decorator). */
export function declaredFields(cls: ClassType): string[] {
  const metadata = getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false);
  return [...new Set(metadata.map((m) => m.propertyName))].sort();
}

/** The message for a field the input class does not declare, listing those it does. */
export function unknownFieldMessage(allowed: readonly string[]): string {
  return `unknown field; expected one of: ${allowed.length > 0 ? allowed.join(', ') : '(no fields)'}`;
}

function constraintMessage(error: ValidationError, name: string, message: string): string {
  if (name === 'whitelistValidation') {
    const owner = error.target?.constructor;
    const allowed = owner && owner !== Object ? declaredFields(owner as ClassType) : [];
    return unknownFieldMessage(allowed);
  }
  if (name === 'unknownValue') return `expected an object, got ${describeValue(error.value)}`;
  // class-validator starts its default messages with the property name; the field is named apart.
  const text = message.startsWith(`${error.property} `)
    ? message.slice(error.property.length + 1)
    : message;
  return `${text}, got ${describeValue(error.value)}`;
}

/** Flattens class-validator's error tree into `{ field, message }` pairs named by path. */
export function formatValidationErrors(errors: ValidationError[], parentPath = ''): FieldError[] {
  const out: FieldError[] = [];
  for (const error of errors) {
    const field = joinPath(parentPath, error.property);
    for (const [name, message] of Object.entries(error.constraints ?? {})) {
      out.push({
        field: field === '' ? '(input)' : field,
        message: constraintMessage(error, name, message),
      });
    }
    if (error.children && error.children.length > 0)
      out.push(...formatValidationErrors(error.children, field));
  }
  return out;
}
