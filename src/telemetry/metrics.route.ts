import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Role } from '../auth/role';
import { secretMatcher } from '../auth/constant-time';
import type { Secret } from '../config';
import { ForbiddenError, UnauthenticatedError } from '../errors';
import type { GatewayMetrics } from './gateway-metrics';

/**
 * `GET /metrics`, in Prometheus text format, for the bearer of METRICS_TOKEN (a token that opens
 * nothing else) or of an admin's token; unset METRICS_TOKEN leaves it to admins. Anyone else: 401
 * without a token that authenticates, 403 with a member's or manager's. Why not open by default:
 * docs/security.md, "Metrics".
 */
export function registerMetricsRoute(
  app: FastifyInstance,
  metrics: GatewayMetrics,
  metricsToken: Secret | undefined,
): void {
  const isMetricsToken = metricsToken ? secretMatcher(metricsToken.reveal()) : () => false;
  const allowed = (request: FastifyRequest): void => {
    const bearer = /^Bearer (\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
    if (bearer !== undefined && isMetricsToken(bearer)) return;
    if (request.principal?.role === Role.ADMIN) return;
    if (request.principal)
      throw new ForbiddenError('Only admins and METRICS_TOKEN may read /metrics');
    throw request.authFailure ?? new UnauthenticatedError();
  };
  app.get('/metrics', async (request, reply) => {
    allowed(request);
    const { contentType, body } = await metrics.scrape();
    return reply.type(contentType).send(body);
  });
}
