import { IsBoolean, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { BadUserInputError } from '../../src/errors';
import {
  IsCurrencyCode,
  IsEntityId,
  IsMemberEmail,
  IsNestedInput,
  IsPeriodUnit,
  IsRoleValue,
  IsTargetAmounts,
  validateInput,
} from '../../src/validation';

class MemberOfInput {
  @IsEntityId()
  team_id!: string;
}

class CreateMemberInput {
  @IsString() @MaxLength(100) lastname!: string;
  @IsString() @MaxLength(100) firstname!: string;
  @IsMemberEmail() email!: string;
  @IsRoleValue() role!: string;
  @IsNestedInput(() => MemberOfInput) memberOf!: MemberOfInput;
}

class ListInput {
  @IsOptional() @IsInt() @Min(1) @Max(100) limit = 20;
  @IsOptional() @IsBoolean() archived?: boolean;
  @IsOptional() @IsString({ each: true }) metrics?: string[];
}

class SettingsInput {
  @IsOptional() @IsCurrencyCode() currency?: string;
  @IsOptional() @IsPeriodUnit() period?: string;
  @IsOptional() @IsTargetAmounts() targets?: number[];
}

const valid = {
  lastname: 'Lovelace',
  firstname: 'Ada',
  email: 'ada@example.com',
  role: 'member',
  memberOf: { team_id: 't1' },
};

async function rejection(
  cls: new () => object,
  raw: unknown,
  source: 'query' | 'body' | 'graphql' = 'body',
): Promise<BadUserInputError> {
  try {
    await validateInput(cls, raw, { source });
  } catch (error) {
    expect(error).toBeInstanceOf(BadUserInputError);
    return error as BadUserInputError;
  }
  throw new Error('expected validateInput to reject');
}

describe('validateInput', () => {
  it('returns an instance of the class with nested instances', async () => {
    const input = await validateInput(CreateMemberInput, JSON.parse(JSON.stringify(valid)), {
      source: 'body',
    });
    expect(input).toBeInstanceOf(CreateMemberInput);
    expect(input.memberOf).toBeInstanceOf(MemberOfInput);
    expect(input.memberOf.team_id).toBe('t1');
  });

  it('rejects an unknown field and lists the declared ones', async () => {
    const error = await rejection(CreateMemberInput, { ...valid, nickname: 'ada' });
    expect(error.fieldErrors).toEqual([
      {
        field: 'nickname',
        message: 'unknown field; expected one of: email, firstname, lastname, memberOf, role',
      },
    ]);
  });

  it('names nested paths and says what came', async () => {
    const error = await rejection(CreateMemberInput, { ...valid, memberOf: { team_id: 5 } });
    expect(error.fieldErrors?.[0]).toEqual({
      field: 'memberOf.team_id',
      message: 'must be an id (a string), got number 5',
    });
    expect(error.message).toContain('memberOf.team_id');
  });

  it('names array elements by index', async () => {
    const error = await rejection(SettingsInput, { targets: [1, 2, 3, -4] });
    expect(error.fieldErrors?.map((e) => e.field)).toEqual(['targets']);
    expect(error.fieldErrors?.[0].message).toContain('0 or more');
    const deep = await rejection(SettingsInput, { targets: [1, 2, 3, Number.NaN] });
    expect(deep.fieldErrors).toEqual([
      { field: 'targets[3]', message: 'expected a finite number, got number NaN' },
    ]);
  });

  it('reports a missing required field', async () => {
    const { role: _role, ...withoutRole } = valid;
    const error = await rejection(CreateMemberInput, withoutRole);
    expect(error.fieldErrors).toEqual([
      { field: 'role', message: 'must be one of admin, manager, member, got nothing' },
    ]);
  });

  it('rejects $-prefixed keys anywhere', async () => {
    const error = await rejection(CreateMemberInput, {
      ...valid,
      memberOf: { team_id: { $ne: null } },
    });
    expect(error.fieldErrors).toEqual([
      { field: 'memberOf.team_id.$ne', message: 'keys starting with "$" are not allowed' },
    ]);
  });

  it('rejects __proto__, constructor and prototype keys without polluting Object.prototype', async () => {
    const raw = JSON.parse(
      '{"lastname":"a","__proto__":{"polluted":true},"memberOf":{"constructor":{"prototype":{"polluted":true}}}}',
    );
    const error = await rejection(CreateMemberInput, raw);
    expect(error.fieldErrors?.map((e) => e.field)).toEqual(['__proto__', 'memberOf.constructor']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('rejects NaN and Infinity', async () => {
    const error = await rejection(ListInput, { limit: Number.POSITIVE_INFINITY }, 'graphql');
    expect(error.fieldErrors).toEqual([
      { field: 'limit', message: 'expected a finite number, got number Infinity' },
    ]);
    expect(error.message).toBe(
      'Invalid arguments: limit: expected a finite number, got number Infinity',
    );
  });

  it('rejects over-long strings and NUL bytes', async () => {
    const long = await rejection(CreateMemberInput, { ...valid, lastname: 'x'.repeat(10_001) });
    expect(long.fieldErrors).toEqual([
      { field: 'lastname', message: 'expected at most 10000 characters, got 10001' },
    ]);
    const nul = await rejection(CreateMemberInput, { ...valid, firstname: 'Ad\u0000a' });
    expect(nul.fieldErrors?.[0].field).toBe('firstname');
    expect(nul.fieldErrors?.[0].message).toContain('NUL');
  });

  it('rejects hostile nesting without overflowing the stack', async () => {
    const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    const error = await rejection(SettingsInput, { targets: deep });
    expect(error.fieldErrors?.[0].message).toContain('levels of nesting');
  });

  it('rejects a body that is not an object', async () => {
    const error = await rejection(CreateMemberInput, [valid]);
    expect(error.fieldErrors).toEqual([
      { field: '(input)', message: 'expected a JSON object, got an array of 1' },
    ]);
  });

  it('coerces clean query strings to the declared types, and only those', async () => {
    const input = await validateInput(
      ListInput,
      { limit: '50', archived: 'true', metrics: ['a,b', 'c'] },
      { source: 'query' },
    );
    expect(input).toMatchObject({ limit: 50, archived: true, metrics: ['a', 'b', 'c'] });
    const error = await rejection(ListInput, { limit: '12abc' }, 'query');
    expect(error.fieldErrors?.[0]).toEqual({
      field: 'limit',
      message: expect.stringContaining('got string "12abc"'),
    });
    expect(error.message.startsWith('Invalid query parameters:')).toBe(true);
  });

  it('never coerces query text to a non-finite number', async () => {
    const error = await rejection(ListInput, { limit: '1e999' }, 'query');
    expect(error.fieldErrors?.[0]).toEqual({
      field: 'limit',
      message: expect.stringContaining('got string "1e999"'),
    });
  });

  it('rejects a JSON number that overflows to Infinity', async () => {
    const error = await rejection(ListInput, JSON.parse('{"limit": 1e999}'));
    expect(error.fieldErrors).toEqual([
      { field: 'limit', message: 'expected a finite number, got number Infinity' },
    ]);
  });

  it('does not coerce body values', async () => {
    const error = await rejection(ListInput, { limit: '50' });
    expect(error.fieldErrors?.[0].field).toBe('limit');
  });

  it('keeps defaults of omitted fields', async () => {
    expect((await validateInput(ListInput, {}, { source: 'query' })).limit).toBe(20);
  });

  it('checks shared rules: currency, period, role, e-mail', async () => {
    await expect(
      validateInput(SettingsInput, { currency: 'eur', period: 'monthly' }, { source: 'body' }),
    ).resolves.toBeInstanceOf(SettingsInput);
    const error = await rejection(SettingsInput, { currency: 'EUX', period: 'daily' });
    expect(error.fieldErrors).toEqual([
      {
        field: 'currency',
        message: 'must be an ISO 4217 currency code such as EUR or USD, got string "EUX"',
      },
      { field: 'period', message: 'must be one of weekly, monthly, quarterly, got string "daily"' },
    ]);
    const email = await rejection(CreateMemberInput, {
      ...valid,
      email: 'not-an-email',
      role: 'owner',
    });
    expect(email.fieldErrors?.map((e) => e.field)).toEqual(['email', 'role']);
  });
});
