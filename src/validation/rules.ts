import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsEmail,
  IsIn,
  IsNumber,
  IsString,
  Matches,
  MaxLength,
  Min,
  ValidateBy,
  ValidateNested,
  buildMessage,
} from 'class-validator';
import { ROLES } from '../auth/role';
import { PERIOD_UNITS } from '../domain/period';
import type { ClassType } from './class-type';

/**
 * Shared input rules, written once and used by the REST input classes (snake_case) and the
 * GraphQL input classes (camelCase) alike. Each is a composed property decorator.
 */
function compose(...decorators: PropertyDecorator[]): PropertyDecorator {
  return (target, key) => {
    for (const decorator of decorators) decorator(target, key);
  };
}

/** ISO 4217 codes the runtime knows (no hand-written list); case-insensitive. */
const CURRENCIES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));

export function isCurrencyCode(value: unknown): boolean {
  return (
    typeof value === 'string' && /^[A-Za-z]{3}$/.test(value) && CURRENCIES.has(value.toUpperCase())
  );
}

/** An ISO 4217 alphabetic code in any case (`eur`, `EUR`); services store it upper-case. */
export function IsCurrencyCode(): PropertyDecorator {
  return ValidateBy({
    name: 'isCurrencyCode',
    validator: {
      validate: isCurrencyCode,
      defaultMessage: buildMessage(() => 'must be an ISO 4217 currency code such as EUR or USD'),
    },
  });
}

/** A member e-mail: a plain address of at most 254 characters. */
export function IsMemberEmail(): PropertyDecorator {
  return compose(
    IsString({ message: 'must be a string' }),
    MaxLength(254, { message: 'must be at most 254 characters' }),
    IsEmail({}, { message: 'must be an e-mail address such as ada@example.com' }),
  );
}

/** One of the roles of the contract's role table. */
export function IsRoleValue(): PropertyDecorator {
  return IsIn([...ROLES], { message: `must be one of ${ROLES.join(', ')}` });
}

/** `weekly`, `monthly` or `quarterly`. */
export function IsPeriodUnit(): PropertyDecorator {
  return IsIn([...PERIOD_UNITS], { message: `must be one of ${PERIOD_UNITS.join(', ')}` });
}

/** Ids are opaque text (ObjectId hex, UUID, CRM numbers): 1–128 characters, no spaces or operators. */
export const ENTITY_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;

export function IsEntityId(): PropertyDecorator {
  return compose(
    IsString({ message: 'must be an id (a string)' }),
    Matches(ENTITY_ID_PATTERN, {
      message: 'must be an id of 1–128 letters, digits, "_", ".", ":" or "-"',
    }),
  );
}

/** Target amounts: a list of 1 to 52 non-negative finite numbers (its exact length is a service rule). */
export function IsTargetAmounts(): PropertyDecorator {
  return compose(
    IsArray({ message: 'must be a list of amounts' }),
    ArrayMinSize(1, { message: 'must hold at least one amount' }),
    ArrayMaxSize(52, { message: 'must hold at most 52 amounts' }),
    IsNumber(
      { allowNaN: false, allowInfinity: false },
      { each: true, message: 'must hold only numbers' },
    ),
    Min(0, { each: true, message: 'must hold only amounts of 0 or more' }),
  );
}

/** A nested input object of class `cls`, validated with the same rules (`memberOf: { team_id }`). */
export function IsNestedInput(cls: () => ClassType): PropertyDecorator {
  return compose(ValidateNested(), Type(cls) as PropertyDecorator);
}
