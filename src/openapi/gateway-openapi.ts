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

/** The gateway's OpenAPI document for `routes` (every registered route). */
export function gatewayOpenApiDocument(routes: readonly RouteDefinition[]): OpenApiDocument {
  const { version } = JSON.parse(readFileSync(join(projectRoot(), 'package.json'), 'utf8')) as {
    version: string;
  };
  return buildOpenApiDocument(routes, {
    title: 'Pipeline Gateway REST API',
    version,
    description: DESCRIPTION,
  });
}
