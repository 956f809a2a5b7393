import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RouteDefinition } from '../rest/route-definition';
import { projectRoot } from '../project-root';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi-document';

const DESCRIPTION = [
  'The REST compatibility layer of Pipeline Gateway. Every route except the health checks and',
  'the docs takes `Authorization: Bearer <token>`. Errors share one envelope',
  '(`{ message, success: false, statusCode, errors? }`), nested under `status` on the metrics and',
  'timeseries routes. GraphQL is at `/graphql`, explored at `/graphiql`.',
].join(' ');

/**
 * Relative to the document, so it names whatever scheme, host and port the client reached the
 * gateway at, also behind a proxy that terminates TLS or rewrites `Host`. It is not built from the
 * request: without the proxy's forwarded headers (and a rule on whom to trust with them) the
 * gateway sees its own address, and a client-sent `Host` must not end up in a served document.
 */
const SERVERS = [
  {
    url: '/',
    description:
      'The gateway serving this document, at the scheme, host and port it was fetched from',
  },
];

/** One line per tag the gateway's routes use (docs/api.md says more). */
const TAG_DESCRIPTIONS: Readonly<Record<string, string>> = {
  Operations: 'Liveness, readiness and this description; no token needed',
  Tokens: 'Signed member tokens, issued by an admin',
  'Teams and members': 'Teams, their members and roles',
  Targets: "A member's targets for a year, one amount per period",
  Settings: 'The account currency and period unit, the forecast cadence and category mappings',
  Forecasts:
    'Forecasts per period: categories rolled up, calls submitted, who is missing, accuracy',
  Pipelines: 'Pipelines of a snapshot, their stages, metrics and time series',
  'CRM import': 'Imports, and syncs from HubSpot or Salesforce as jobs, each a new snapshot',
  Events: 'Signed webhooks with their deliveries, and alert rules on metrics',
};

/**
 * The routes that are not RouteDefinitions, since they answer other than JSON envelopes: the
 * index (src/explorer/root.route.ts) and the Prometheus metrics (src/telemetry/metrics.route.ts).
 */
const EXTRA_PATHS = {
  '/': {
    get: {
      operationId: 'getIndex',
      summary: 'Links to the GraphQL endpoint, the explorer and this description; no token needed',
      description:
        'A browser (an `Accept` ranking `text/html` first) is redirected to `/graphiql`.',
      tags: ['Operations'],
      security: [],
      responses: {
        '200': {
          description: 'The index',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: {
                  message: { type: 'string' },
                  success: { type: 'boolean' },
                  statusCode: { type: 'integer' },
                  links: { type: 'object', additionalProperties: { type: 'string' } },
                },
                required: ['message', 'success', 'statusCode', 'links'],
              },
            },
          },
        },
        '302': {
          description: 'A browser is sent to the explorer',
          headers: { Location: { schema: { type: 'string', const: '/graphiql' } } },
        },
        '429': { $ref: '#/components/responses/TooManyRequests' },
      },
    },
  },
  '/metrics': {
    get: {
      operationId: 'getMetrics',
      summary: 'Prometheus metrics (text format): for METRICS_TOKEN or an admin token',
      tags: ['Operations'],
      security: [{ bearerAuth: [] }],
      responses: {
        '200': {
          description: 'The metrics, in the Prometheus text exposition format 0.0.4',
          content: { 'text/plain': { schema: { type: 'string' } } },
        },
        '401': { $ref: '#/components/responses/Unauthorized' },
        '403': { $ref: '#/components/responses/Forbidden' },
        '429': { $ref: '#/components/responses/TooManyRequests' },
      },
    },
  },
};

/** The gateway's OpenAPI document for `routes` (every registered route). */
export function gatewayOpenApiDocument(routes: readonly RouteDefinition[]): OpenApiDocument {
  const { version } = JSON.parse(readFileSync(join(projectRoot(), 'package.json'), 'utf8')) as {
    version: string;
  };
  return buildOpenApiDocument(
    routes,
    { title: 'Pipeline Gateway REST API', version, description: DESCRIPTION },
    { servers: SERVERS, tagDescriptions: TAG_DESCRIPTIONS, extraPaths: EXTRA_PATHS },
  );
}
