import type { FastifyInstance } from 'fastify';
import type { GatewayMetrics } from './gateway-metrics';

/**
 * Counts every answered request by method, route template and status, with its duration (from
 * fastify's arrival timestamp to the answer written). A request no route matched counts under
 * `unmatched`, so unknown paths cannot add series.
 */
export function registerHttpMetrics(app: FastifyInstance, metrics: GatewayMetrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    metrics.httpRequest(
      request.method,
      request.routeOptions.url ?? 'unmatched',
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    done();
  });
}
