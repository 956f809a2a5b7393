import { Type } from 'class-transformer';
import {
  IsArray,
  IsInt,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { buildOpenApiDocument, openApiPath, operationId } from '../../src/openapi/openapi-document';
import { ErrorCode } from '../../src/errors';
import { ok, type RouteDefinition } from '../../src/rest/route-definition';
import {
  IsCurrencyCode,
  IsEntityId,
  IsMemberEmail,
  IsNestedInput,
  IsRoleValue,
  IsTargetAmounts,
} from '../../src/validation';
import { validateOpenApi } from './validate-openapi';
import { EVERY_ROLE } from '../../src/rest/route-roles';

class MemberOfInput {
  @IsEntityId() team_id!: string;
}

class CreateMemberInput {
  @IsString() @MaxLength(100) lastname!: string;
  @IsMemberEmail() email!: string;
  @IsRoleValue() role!: string;
  @IsNestedInput(() => MemberOfInput) memberOf!: MemberOfInput;
}

class ListMembersInput {
  @IsOptional() @IsInt() @Min(1) @Max(100) limit = 20;
  @IsOptional() @IsString({ each: true }) metrics?: string[];
}

class TargetsInput {
  @IsEntityId() member_id!: string;
  @IsTargetAmounts() targets!: number[];
  @IsOptional() @IsCurrencyCode() currency?: string;
}

const envelope = { type: 'object', properties: { message: { type: 'string' } } };
const handler = async () => ok('done', {});

const routes: RouteDefinition[] = [
  {
    method: 'GET',
    path: '/healthz',
    summary: 'Liveness',
    tag: 'Operations',
    authenticated: false,
    response: envelope,
    handler,
  },
  {
    method: 'POST',
    path: '/teams/members',
    summary: 'Create a member',
    tag: 'Teams and members',
    authenticated: true,
    roles: EVERY_ROLE,
    input: CreateMemberInput,
    response: envelope,
    errors: [ErrorCode.NOT_FOUND, ErrorCode.CONFLICT],
    handler,
  } as RouteDefinition,
  {
    method: 'GET',
    path: '/teams/members',
    summary: 'List members',
    tag: 'Teams and members',
    authenticated: true,
    roles: EVERY_ROLE,
    input: ListMembersInput,
    response: envelope,
    handler,
  } as RouteDefinition,
  {
    method: 'POST',
    path: '/teams/members/:member_id/targets',
    summary: 'Set targets',
    tag: 'Targets',
    authenticated: true,
    roles: EVERY_ROLE,
    input: TargetsInput,
    response: envelope,
    handler,
  } as RouteDefinition,
  {
    method: 'GET',
    path: '/pipelines/metrics',
    summary: 'Metrics',
    tag: 'Pipelines',
    authenticated: true,
    roles: EVERY_ROLE,
    response: envelope,
    errorShape: { kind: 'status', emptyKey: 'metrics' },
    errors: [ErrorCode.NOT_FOUND],
    handler,
  },
];

type Json = Record<string, any>;
const document = buildOpenApiDocument(routes, { title: 'Test', version: '1.0.0' }) as Json;

describe('buildOpenApiDocument', () => {
  it('produces a document the OpenAPI 3.1 schema validator accepts', () => {
    const result = validateOpenApi(document);
    expect(result.errors).toBeNull();
    expect(result).toMatchObject({ valid: true, version: '3.1' });
  });

  it('the validator rejects a document with a broken operation, so the check above can fail', () => {
    const broken = JSON.parse(JSON.stringify(document)) as Json;
    broken.paths['/healthz'].get.responses = { '200': { content: {} } }; // a response without description
    expect(validateOpenApi(broken).valid).toBe(false);
  });

  it('turns fastify params into OpenAPI templates and names operations after method and path', () => {
    expect(openApiPath('/teams/members/:member_id/targets')).toBe(
      '/teams/members/{member_id}/targets',
    );
    expect(openApiPath('/x/:id(^\\d+)')).toBe('/x/{id}');
    expect(Object.keys(document.paths)).toEqual([
      '/healthz',
      '/teams/members',
      '/teams/members/{member_id}/targets',
      '/pipelines/metrics',
    ]);
    expect(operationId(routes[3]!)).toBe('postTeamsMembersByMemberIdTargets');
  });

  it('documents a POST body from the input class, nested classes as components, unknown fields rejected', () => {
    const body = document.paths['/teams/members'].post.requestBody;
    expect(body.required).toBe(true);
    expect(body.content['application/json'].schema).toEqual({
      type: 'object',
      properties: {
        lastname: { type: 'string', maxLength: 100 },
        email: { type: 'string', maxLength: 254, format: 'email' },
        role: { type: 'string', enum: ['admin', 'manager', 'member'] },
        memberOf: { $ref: '#/components/schemas/MemberOfInput' },
      },
      required: ['lastname', 'email', 'role', 'memberOf'],
      additionalProperties: false,
    });
    expect(document.components.schemas.MemberOfInput).toEqual({
      type: 'object',
      properties: { team_id: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$' } },
      required: ['team_id'],
      additionalProperties: false,
    });
  });

  it('documents GET input as query parameters with defaults, bounds and lists', () => {
    expect(document.paths['/teams/members'].get.description).toMatch(
      /JSON body; query parameters win/,
    );
    expect(document.paths['/healthz'].get.description).toBeUndefined();
    expect(document.paths['/teams/members'].get.parameters).toEqual([
      {
        name: 'limit',
        in: 'query',
        required: false,
        schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
      },
      {
        name: 'metrics',
        in: 'query',
        required: false,
        schema: { type: 'array', items: { type: 'string' } },
      },
    ]);
  });

  it('takes path parameters out of the body and types array elements', () => {
    const op = document.paths['/teams/members/{member_id}/targets'].post;
    expect(op.parameters).toEqual([
      {
        name: 'member_id',
        in: 'path',
        required: true,
        schema: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$' },
      },
      expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: false }),
    ]);
    const schema = op.requestBody.content['application/json'].schema;
    expect(Object.keys(schema.properties)).toEqual(['targets', 'currency']);
    expect(schema.properties.targets).toEqual({
      type: 'array',
      minItems: 1,
      maxItems: 52,
      items: { type: 'number', minimum: 0 },
    });
    expect(schema.properties.currency).toMatchObject({ type: 'string', pattern: '^[A-Za-z]{3}$' });
    expect(schema.required).toEqual(['targets']);
  });

  it('documents the Idempotency-Key on writes, except one whose answer must not be kept', () => {
    const refusing = {
      ...routes[1],
      path: '/auth/tokens',
      refusesIdempotencyKey: 'its answer holds a token',
    } as RouteDefinition;
    const doc = buildOpenApiDocument([...routes, refusing], {
      title: 'Test',
      version: '1.0.0',
    }) as Json;
    const headers = (op: { parameters?: Array<{ name: string; in: string }> }) =>
      (op.parameters ?? []).filter((p) => p.in === 'header').map((p) => p.name);
    expect(headers(doc.paths['/teams/members'].post)).toEqual(['Idempotency-Key']);
    expect(headers(doc.paths['/teams/members'].get)).toEqual([]);
    expect(headers(doc.paths['/auth/tokens'].post)).toEqual([]);
    expect(Object.keys(doc.paths['/auth/tokens'].post.responses)).not.toContain('422');
    expect(doc.components.responses.UnprocessableContent.description).toMatch(/Idempotency-Key/);
    expect(validateOpenApi(doc).errors).toBeNull();
  });

  it('puts the bearer scheme on authenticated routes only', () => {
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({
      type: 'http',
      scheme: 'bearer',
    });
    expect(document.paths['/healthz'].get.security).toEqual([]);
    expect(document.paths['/teams/members'].post.security).toEqual([{ bearerAuth: [] }]);
  });

  it('lists the error responses each route can give, sharing the envelope component', () => {
    expect(Object.keys(document.paths['/healthz'].get.responses)).toEqual(['200', '429', '500']);
    expect(Object.keys(document.paths['/teams/members'].post.responses)).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '409',
      '413',
      '415',
      '422',
      '429',
      '500',
      '503',
    ]);
    // No `errors` declared, but a path parameter: 404 is assumed.
    expect(document.paths['/teams/members/{member_id}/targets'].post.responses['404']).toEqual({
      $ref: '#/components/responses/NotFound',
    });
    expect(document.components.responses.Unauthorized.headers['WWW-Authenticate']).toBeDefined();
    expect(document.components.responses.Conflict.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/ErrorEnvelope',
    });
    expect(document.components.schemas.ErrorEnvelope.required).toEqual([
      'message',
      'success',
      'statusCode',
    ]);
  });

  it('nests the error envelope under status for routes that answer that way', () => {
    const notFound = document.paths['/pipelines/metrics'].get.responses['404'];
    expect(notFound.content['application/json'].schema).toEqual({
      type: 'object',
      required: ['metrics', 'status'],
      properties: {
        metrics: { type: 'array', maxItems: 0 },
        status: { $ref: '#/components/schemas/ErrorEnvelope' },
      },
    });
  });

  it('refuses two definitions of the same method and path', () => {
    expect(() =>
      buildOpenApiDocument([routes[0]!, routes[0]!], { title: 'T', version: '1' }),
    ).toThrow('Expected one RouteDefinition per method and path, got two for GET /healthz');
  });

  it('documents a list of nested inputs as items referring to one component', () => {
    class BatchInput {
      @IsArray()
      @ValidateNested({ each: true })
      @Type(() => MemberOfInput)
      members!: MemberOfInput[];
    }
    const batch = buildOpenApiDocument([{ ...routes[1]!, input: BatchInput } as RouteDefinition], {
      title: 'T',
      version: '1',
    }) as Json;
    const schema =
      batch.paths['/teams/members'].post.requestBody.content['application/json'].schema;
    expect(schema.properties.members).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/MemberOfInput' },
    });
    expect(batch.components.schemas.MemberOfInput.required).toEqual(['team_id']);
  });

  it('refuses two nested input classes of the same name, whose $refs would be one', () => {
    const Other = (() => {
      class MemberOfInput {
        @IsString() name!: string;
      }
      return MemberOfInput;
    })();
    class OtherInput {
      @IsNestedInput(() => Other) memberOf!: object;
    }
    const clash: RouteDefinition = { ...routes[0]!, path: '/other', input: OtherInput };
    expect(() => buildOpenApiDocument([routes[1]!, clash], { title: 'T', version: '1' })).toThrow(
      'Expected one nested input class named MemberOfInput, got two: rename one of them',
    );
  });
});
