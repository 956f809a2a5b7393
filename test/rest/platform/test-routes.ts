import { IsBoolean, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { MongoNetworkError } from 'mongodb';
import type { RouteDefinition } from '../../../src/rest/route-definition';
import { ok } from '../../../src/rest/route-definition';
import { IsEntityId, IsNestedInput, IsTargetAmounts } from '../../../src/validation';
import { EVERY_ROLE } from '../../../src/rest/route-roles';

export class EchoNested {
  @IsEntityId() team_id!: string;
}

export class EchoInput {
  @IsOptional() @IsString() name?: string;
  @IsOptional() @IsInt() @Min(1) @Max(100) limit = 20;
  @IsOptional() @IsBoolean() flag?: boolean;
  @IsOptional() @IsString({ each: true }) tags?: string[];
  @IsOptional() @IsTargetAmounts() targets?: number[];
  @IsOptional() @IsNestedInput(() => EchoNested) memberOf?: EchoNested;
  @IsOptional() @IsEntityId() id?: string;
}

const envelope = {
  type: 'object',
  properties: {
    message: { type: 'string' },
    success: { type: 'boolean' },
    statusCode: { type: 'integer' },
    input: { type: 'object', additionalProperties: true },
  },
};

function echo(method: 'GET' | 'POST' | 'DELETE', path: string): RouteDefinition<EchoInput> {
  return {
    method,
    path,
    summary: 'test echo',
    tag: 'Test',
    authenticated: true,
    roles: EVERY_ROLE,
    input: EchoInput,
    response: envelope,
    handler: async (_ctx, input) => ok(`${method} echoed`, { input: { ...input } }),
  };
}

/** Test-only routes: echo the validated input, or fail in the ways the error edge must handle. */
export const TEST_ROUTES = [
  echo('GET', '/test/echo'),
  echo('POST', '/test/echo'),
  echo('DELETE', '/test/echo'),
  echo('POST', '/test/echo/:id'),
  {
    method: 'GET',
    path: '/test/fail',
    summary: 'throws an internal error',
    tag: 'Test',
    authenticated: true,
    roles: EVERY_ROLE,
    response: envelope,
    handler: async () => {
      throw new Error(
        'connection to mongodb://secret-host:27017 failed: E11000 at /srv/app/stack.ts:12',
      );
    },
  },
  {
    method: 'GET',
    path: '/test/unreachable',
    summary: 'throws a MongoDB network error',
    tag: 'Test',
    authenticated: true,
    roles: EVERY_ROLE,
    response: envelope,
    errorShape: { kind: 'status', emptyKey: 'metrics' },
    handler: async () => {
      throw new MongoNetworkError('connect ECONNREFUSED 10.0.0.5:27017');
    },
  },
  {
    method: 'GET',
    path: '/test/duplicate',
    summary: 'throws a duplicate key error',
    tag: 'Test',
    authenticated: true,
    roles: EVERY_ROLE,
    response: envelope,
    handler: async () => {
      throw Object.assign(
        new Error('E11000 duplicate key error collection: test.members index: emailLower_1'),
        { code: 11000 },
      );
    },
  },
] as RouteDefinition[];
