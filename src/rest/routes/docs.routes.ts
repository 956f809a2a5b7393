import { gatewayOpenApiDocument } from '../../docs/openapi/gateway-openapi';
import type { RouteDefinition } from '../route-definition';

export const docsRoutes: RouteDefinition[] = [
  {
    method: 'GET',
    path: '/openapi.json',
    summary: 'OpenAPI 3.1 description of every REST route',
    tag: 'Operations',
    authenticated: false,
    // Any JSON object: the document is generated, not a fixed shape worth a serialiser.
    response: { type: 'object', additionalProperties: true },
    handler: async () => gatewayOpenApiDocument(),
  },
];
