import { IsInt, IsOptional, Max } from 'class-validator';
import { BadUserInputError } from '../../src/errors';
import { IsEntityId, validateGraphQLArg } from '../../src/validation';

class PageArgs {
  @IsOptional() @IsInt() @Max(100) first?: number;
  @IsOptional() @IsEntityId() teamId?: string;
}

async function fieldErrors(value: unknown) {
  try {
    await validateGraphQLArg(value);
  } catch (error) {
    expect(error).toBeInstanceOf(BadUserInputError);
    return (error as BadUserInputError).fieldErrors;
  }
  throw new Error('expected validateGraphQLArg to reject');
}

describe('validateGraphQLArg', () => {
  it('accepts valid args instances and plain scalars', async () => {
    await expect(
      validateGraphQLArg(Object.assign(new PageArgs(), { first: 10, teamId: 't-1' })),
    ).resolves.toBeUndefined();
    await expect(validateGraphQLArg('plain text')).resolves.toBeUndefined();
    await expect(validateGraphQLArg(null)).resolves.toBeUndefined();
  });

  it('runs the class rules with the shared options', async () => {
    expect(await fieldErrors(Object.assign(new PageArgs(), { first: 1000 }))).toEqual([
      { field: 'first', message: 'must not be greater than 100, got number 1000' },
    ]);
  });

  it('rejects $ keys and prototype keys inside JSON scalar values', async () => {
    expect(await fieldErrors({ filter: { $where: 'sleep(1000)' } })).toEqual([
      { field: 'filter.$where', message: 'keys starting with "$" are not allowed' },
    ]);
    expect(await fieldErrors(JSON.parse('{"__proto__": {"admin": true}}'))).toEqual([
      { field: '__proto__', message: 'the key "__proto__" is not allowed' },
    ]);
  });

  it('rejects NUL bytes, over-long strings and non-finite numbers in any argument', async () => {
    expect((await fieldErrors('a\u0000b'))?.[0].message).toContain('NUL');
    expect((await fieldErrors('x'.repeat(10_001)))?.[0].message).toBe(
      'expected at most 10000 characters, got 10001',
    );
    expect(await fieldErrors([1, Number.NaN])).toEqual([
      { field: '[1]', message: 'expected a finite number, got number NaN' },
    ]);
  });
});
