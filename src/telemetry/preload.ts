// The entry's first import: OpenTelemetry's instrumentations patch fastify, graphql and the
// MongoDB driver as they are required, so tracing must start before any of them loads.
import { loadTracingConfig } from '../config';
import type { Tracing } from './tracing';

function startIfConfigured(): Tracing | null {
  let config;
  try {
    config = loadTracingConfig();
  } catch {
    return null; // a bad value: the entry's loadConfig() reports it and stops
  }
  if (config === null) return null;
  // Required here, synchronously and only when tracing is on: nothing of OpenTelemetry loads
  // otherwise, and an import would run after the instrumented modules had loaded.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startTracing } = require('./tracing') as typeof import('./tracing');
  return startTracing(config);
}

/**
 * The process's tracing, started as this module loads; null when OTEL_EXPORTER_OTLP_ENDPOINT is
 * unset. Process-wide by nature: the instrumentations patch modules for the whole process.
 */
export const tracing: Tracing | null = startIfConfigured();
