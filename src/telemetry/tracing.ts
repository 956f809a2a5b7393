// Loaded by ./preload.ts only when OTEL_EXPORTER_OTLP_ENDPOINT is set, before anything it traces.
import FastifyOtelInstrumentation from '@fastify/otel';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { GraphQLInstrumentation } from '@opentelemetry/instrumentation-graphql';
import { MongoDBInstrumentation } from '@opentelemetry/instrumentation-mongodb';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { TracingConfig } from '../config';

/** The span attribute carrying the gateway's request id (the `x-request-id` of the answer). */
export const REQUEST_ID_ATTRIBUTE = 'gateway.request_id';

/** The process's tracing, as started. */
export interface Tracing {
  /** Sends the spans still buffered and stops. */
  shutdown(): Promise<void>;
}

/**
 * Starts the OpenTelemetry Node SDK: a trace per HTTP request (@fastify/otel: the request, its
 * hooks and handler), with the GraphQL operation and its resolvers (graphql-js's execution; the
 * gateway runs every operation there while tracing, see src/graphql/apollo.ts) and every MongoDB
 * command the driver sends, exported in batches as OTLP/HTTP JSON to `<endpoint>/v1/traces`. Only
 * traces: no OpenTelemetry metrics or logs (metrics are `GET /metrics`). The SDK reads the
 * standard OTEL_* variables it knows (OTEL_EXPORTER_OTLP_HEADERS, OTEL_TRACES_SAMPLER,
 * OTEL_BSP_SCHEDULE_DELAY, OTEL_RESOURCE_ATTRIBUTES...) itself.
 */
export function startTracing(config: TracingConfig): Tracing {
  const sdk = new NodeSDK({
    serviceName: config.serviceName,
    traceExporter: new OTLPTraceExporter({ url: `${config.endpoint}/v1/traces` }),
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new FastifyOtelInstrumentation({
        registerOnInitialization: true,
        requestHook: (span, request) => span.setAttribute(REQUEST_ID_ATTRIBUTE, request.id),
      }),
      // Spans for the resolvers the gateway wrote, not for each plain property read.
      new GraphQLInstrumentation({ ignoreTrivialResolveSpans: true, mergeItems: true }),
      // Command names and collections, never their documents (they hold customer data).
      new MongoDBInstrumentation({ enhancedDatabaseReporting: false }),
    ],
  });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}
