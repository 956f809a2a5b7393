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
  'CRM import': 'HubSpot imports and syncs, each a new snapshot',
};

/** The gateway's OpenAPI document for `routes` (every registered route). */
export function gatewayOpenApiDocument(routes: readonly RouteDefinition[]): OpenApiDocument {
  const { version } = JSON.parse(readFileSync(join(projectRoot(), 'package.json'), 'utf8')) as {
    version: string;
  };
  return buildOpenApiDocument(
    routes,
    { title: 'Pipeline Gateway REST API', version, description: DESCRIPTION },
    { servers: SERVERS, tagDescriptions: TAG_DESCRIPTIONS },
  );
}
