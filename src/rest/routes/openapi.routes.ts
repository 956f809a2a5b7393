import { gatewayOpenApiDocument } from '../../openapi/gateway-openapi';
import type { OpenApiDocument } from '../../openapi/openapi-document';
import type { RouteDefinition } from '../route-definition';

/**
 * `GET /openapi.json`, describing `routesOf()` (asked on first use, so the list may include this
 * route itself); the document is built once.
 */
export function openApiRoute(routesOf: () => readonly RouteDefinition[]): RouteDefinition {
  let document: OpenApiDocument | undefined;
  return {
    method: 'GET',
    path: '/openapi.json',
    summary: 'OpenAPI 3.1 description of every REST route',
    tag: 'Operations',
    authenticated: false,
    // Any JSON object: the document is generated, not a fixed shape worth a serialiser.
    response: { type: 'object', additionalProperties: true },
    handler: async () => (document ??= gatewayOpenApiDocument(routesOf())),
  };
}
