import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROUTES } from '../../rest/routes';
import { projectRoot } from '../graphiql/paths';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi-document';

const DESCRIPTION = [
  'The REST compatibility layer of Pipeline Gateway. Every route except the health checks and',
  'the docs takes `Authorization: Bearer <token>`. Errors share one envelope',
  '(`{ message, success: false, statusCode, errors? }`), nested under `status` on the metrics and',
  'timeseries routes. GraphQL is at `/graphql`, explored at `/graphiql`.',
].join(' ');

let cached: OpenApiDocument | undefined;

/** The gateway's OpenAPI document, built once from every registered route (`ROUTES`). */
export function gatewayOpenApiDocument(): OpenApiDocument {
  if (cached === undefined) {
    const { version } = JSON.parse(readFileSync(join(projectRoot(), 'package.json'), 'utf8')) as { version: string };
    cached = buildOpenApiDocument(ROUTES, { title: 'Pipeline Gateway REST API', version, description: DESCRIPTION });
  }
  return cached;
}
