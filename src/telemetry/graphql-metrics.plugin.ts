import type { ApolloServerPlugin } from '@apollo/server';
import type { GatewayMetrics } from './gateway-metrics';

/**
 * Counts each GraphQL operation by name, type and outcome, with its duration: `ok`, `error` when
 * the answer carries errors (refused by the guard, a resolver's error), `invalid` when the
 * document did not parse or validate (no operation to name).
 */
export function graphqlMetricsPlugin(metrics: GatewayMetrics): ApolloServerPlugin {
  return {
    async requestDidStart() {
      const started = performance.now();
      return {
        async willSendResponse({ operation, operationName, response }) {
          const errors =
            response.body.kind === 'single' && (response.body.singleResult.errors?.length ?? 0) > 0;
          metrics.graphqlOperation(
            operation ? operationName : undefined,
            operation?.operation,
            operation === undefined ? 'invalid' : errors ? 'error' : 'ok',
            (performance.now() - started) / 1000,
          );
        },
      };
    },
  };
}
