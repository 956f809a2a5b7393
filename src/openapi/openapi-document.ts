import { ErrorCode, HTTP_STATUS } from '../errors/error-code';
import type { RouteDefinition } from '../rest/route-definition';
import { ERROR_RESPONSES, routeErrorCodes, takesIdempotencyKey } from './error-responses';
import { InputSchemas } from './input-schemas';
import { objectSchema, type JsonSchema } from './json-schema';

export interface OpenApiInfo {
  title: string;
  version: string;
  description?: string;
}

/** What the document says beyond the routes: where they are served and what each tag groups. */
export interface OpenApiSetting {
  /** The `servers` list; OpenAPI's own default (`/`) when omitted. */
  servers?: { url: string; description?: string }[];
  /** A description for each tag the routes use (keyed by tag name). */
  tagDescriptions?: Readonly<Record<string, string>>;
  /** Path items of routes served outside the RouteDefinitions, written out whole. */
  extraPaths?: Readonly<Record<string, Record<string, unknown>>>;
}

/** An OpenAPI 3.1 document as plain JSON data. */
export type OpenApiDocument = Record<string, unknown> & {
  openapi: '3.1.0';
  paths: Record<string, Record<string, unknown>>;
};

const BEARER = 'bearerAuth';

/** The contract lets a GET take its input as a JSON body as well; OpenAPI can only say it in words. */
const GET_BODY_NOTE =
  'The query parameters may also be sent as a JSON body; query parameters win when both are given.';

const FIELD_ERROR: JsonSchema = {
  type: 'object',
  required: ['field', 'message'],
  properties: {
    field: { type: 'string', examples: ['memberOf.team_id'] },
    message: { type: 'string' },
  },
};

const ERROR_ENVELOPE: JsonSchema = {
  type: 'object',
  required: ['message', 'success', 'statusCode'],
  properties: {
    message: { type: 'string', description: 'What went wrong, in words a person can act on' },
    success: { const: false },
    statusCode: { type: 'integer', description: 'Equals the HTTP status' },
    errors: {
      type: 'array',
      items: { $ref: '#/components/schemas/FieldError' },
      description: 'Invalid fields, for 400',
    },
  },
};

/** `/teams/members/:member_id` → `/teams/members/{member_id}` (a fastify `(regex)` suffix is dropped). */
export function openApiPath(fastifyPath: string): string {
  return fastifyPath
    .split('/')
    .map((segment) =>
      segment.startsWith(':') ? `{${segment.slice(1).replace(/\(.*\)$/, '')}}` : segment,
    )
    .join('/');
}

function pathParameterNames(fastifyPath: string): string[] {
  return fastifyPath
    .split('/')
    .filter((segment) => segment.startsWith(':'))
    .map((segment) => segment.slice(1).replace(/\(.*\)$/, ''));
}

/** `POST /teams/members/:member_id/targets` → `postTeamsMembersByMemberIdTargets`. */
export function operationId(route: RouteDefinition): string {
  const camel = (text: string): string =>
    text
      .split(/[^A-Za-z0-9]+/)
      .filter(Boolean)
      .map((word) => word[0]!.toUpperCase() + word.slice(1))
      .join('');
  const words = route.path
    .split('/')
    .filter(Boolean)
    .map((segment) =>
      segment.startsWith(':')
        ? `By${camel(segment.slice(1).replace(/\(.*\)$/, ''))}`
        : camel(segment),
    );
  return route.method.toLowerCase() + words.join('');
}

function errorResponse(route: RouteDefinition, code: ErrorCode): JsonSchema {
  const spec = ERROR_RESPONSES[code];
  if (route.errorShape?.kind !== 'status') return { $ref: `#/components/responses/${spec.name}` };
  // Metrics and timeseries keep their error envelope under `status`, beside an empty list.
  const key = route.errorShape.emptyKey;
  return {
    description: spec.description,
    ...(spec.headers ? { headers: spec.headers } : {}),
    content: {
      'application/json': {
        schema: {
          type: 'object',
          required: [key, 'status'],
          properties: {
            [key]: { type: 'array', maxItems: 0 },
            status: { $ref: '#/components/schemas/ErrorEnvelope' },
          },
        },
      },
    },
  };
}

/** The header that makes a write safe to retry (docs/api.md, "Retrying writes"). */
const IDEMPOTENCY_KEY_PARAMETER: JsonSchema = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Names this write for 24 h, per caller: a retry with the same key and request gets the first answer again (header `Idempotent-Replayed: true`), 409 while the first still runs, 422 with another request',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
};

function operation(route: RouteDefinition, inputs: InputSchemas): JsonSchema {
  const pathNames = pathParameterNames(route.path);
  const parts = route.input ? inputs.partsOf(route.input) : { properties: {}, required: [] };
  const parameters: JsonSchema[] = pathNames.map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: parts.properties[name] ?? { type: 'string' },
  }));
  if (takesIdempotencyKey(route)) parameters.push(IDEMPOTENCY_KEY_PARAMETER);
  const rest = Object.keys(parts.properties).filter((name) => !pathNames.includes(name));
  let requestBody: JsonSchema | undefined;
  if (route.method === 'GET') {
    // GET input travels as query parameters (a JSON body is accepted too; the query wins).
    for (const name of rest) {
      const schema = parts.properties[name]!;
      const isObject = schema.type === 'object' || typeof schema.$ref === 'string';
      parameters.push({
        name,
        in: 'query',
        required: parts.required.includes(name),
        schema,
        ...(isObject ? { style: 'deepObject', explode: true } : {}),
      });
    }
  } else if (route.input) {
    const body = {
      properties: Object.fromEntries(rest.map((name) => [name, parts.properties[name]!])),
      required: parts.required.filter((name) => rest.includes(name)),
    };
    requestBody = {
      required: body.required.length > 0,
      content: { 'application/json': { schema: objectSchema(body) } },
    };
  }
  const responses: Record<string, JsonSchema> = {
    '200': {
      description: route.summary,
      content: { 'application/json': { schema: route.response } },
    },
  };
  for (const code of routeErrorCodes(route))
    responses[String(HTTP_STATUS[code])] = errorResponse(route, code);
  return {
    operationId: operationId(route),
    summary: route.summary,
    ...(route.method === 'GET' && rest.length > 0 ? { description: GET_BODY_NOTE } : {}),
    tags: [route.tag],
    security: route.authenticated ? [{ [BEARER]: [] }] : [],
    // The roles that may call the operation at all; the others get 403 before their input is read.
    ...(route.authenticated ? { 'x-roles': [...route.roles.allowed] } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses,
  };
}

/**
 * The OpenAPI 3.1 document of the REST layer, generated from the same RouteDefinitions (paths,
 * input classes, response schemas, error shapes) the gateway registers, so it cannot drift from
 * what the server does.
 */
export function buildOpenApiDocument(
  routes: readonly RouteDefinition[],
  info: OpenApiInfo,
  setting: OpenApiSetting = {},
): OpenApiDocument {
  const inputs = new InputSchemas();
  const paths: Record<string, Record<string, unknown>> = {};
  const tags: string[] = [];
  const usedCodes = new Set<ErrorCode>();
  for (const route of routes) {
    const path = openApiPath(route.path);
    const item = (paths[path] ??= {});
    const method = route.method.toLowerCase();
    if (item[method] !== undefined)
      throw new Error(
        `Expected one RouteDefinition per method and path, got two for ${route.method} ${route.path}`,
      );
    item[method] = operation(route, inputs);
    if (!tags.includes(route.tag)) tags.push(route.tag);
    for (const code of routeErrorCodes(route)) usedCodes.add(code);
  }
  const responses: Record<string, JsonSchema> = {};
  for (const code of [...usedCodes].sort((a, b) => HTTP_STATUS[a] - HTTP_STATUS[b])) {
    const spec = ERROR_RESPONSES[code];
    responses[spec.name] = {
      description: spec.description,
      ...(spec.headers ? { headers: spec.headers } : {}),
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: info.title,
      version: info.version,
      ...(info.description ? { description: info.description } : {}),
    },
    ...(setting.servers ? { servers: setting.servers } : {}),
    tags: tags.map((name) => {
      const description = setting.tagDescriptions?.[name];
      return description === undefined ? { name } : { name, description };
    }),
    paths: { ...setting.extraPaths, ...paths },
    components: {
      schemas: { ErrorEnvelope: ERROR_ENVELOPE, FieldError: FIELD_ERROR, ...inputs.components },
      responses,
      securitySchemes: {
        [BEARER]: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            'A token from `POST /auth/tokens`, or the ADMIN_TOKEN printed at first start',
        },
      },
    },
  };
}
