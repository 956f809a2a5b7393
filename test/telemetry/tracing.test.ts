import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startEntry } from '../helpers/entry';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './otlp-receiver';

const ROOT = path.join(__dirname, '../..');

/** The spans of one trace, by the id of their root. */
function traceOf(spans: ReceivedSpan[], traceId: string): ReceivedSpan[] {
  return spans.filter((span) => span.traceId === traceId);
}

/** Whether `span` descends from `ancestor` within `trace`. */
function descendsFrom(trace: ReceivedSpan[], span: ReceivedSpan, ancestor: ReceivedSpan): boolean {
  const byId = new Map(trace.map((s) => [s.spanId, s]));
  for (let at = byId.get(span.parentSpanId); at; at = byId.get(at.parentSpanId))
    if (at.spanId === ancestor.spanId) return true;
  return false;
}

/**
 * The modules of OpenTelemetry's SDK, exporters and instrumentations (and @fastify/otel) a process
 * has loaded; `@opentelemetry/api`, the no-op facade prom-client loads for its exemplars, aside.
 * Read from require.cache once the process has loaded what the entry loads (the preload, then
 * the app), in a child process of its own.
 */
function telemetryModulesLoaded(env: Record<string, string>): Promise<string[]> {
  const script = `
    require('./src/telemetry/preload');
    require('./src/server/build-app');
    const loaded = Object.keys(require.cache).filter((file) =>
      /node_modules[\\\\/](@opentelemetry[\\\\/](?!api[\\\\/])|@fastify[\\\\/]otel[\\\\/])/.test(file));
    process.stdout.write(JSON.stringify(loaded));`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', './test/helpers/ts-register.js', '-e', script], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('exit', () => {
      try {
        resolve(JSON.parse(output) as string[]);
      } catch (error) {
        reject(error);
      }
    });
  });
}

describe('OpenTelemetry traces (OTEL_EXPORTER_OTLP_ENDPOINT)', () => {
  let receiver: OtlpReceiver;
  let dataDir: string;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'gw-tracing-'));
  });
  afterAll(async () => {
    await receiver?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('loads nothing of OpenTelemetry when the endpoint is unset', async () => {
    expect(await telemetryModulesLoaded({})).toEqual([]);
    // The same check sees them when tracing is on: it can fail.
    const on = await telemetryModulesLoaded({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint });
    expect(on.some((file) => file.includes('sdk-node'))).toBe(true);
    expect(on.some((file) => /@fastify[\\/]otel/.test(file))).toBe(true);
  });

  it('sends a trace per request, with the request id, resolver and database spans, for a REST call and a GraphQL query', async () => {
    const run = await startEntry(dataDir, {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_SERVICE_NAME: 'gateway-under-test',
      ADMIN_TOKEN: 'tracing-test-admin-token-0123',
    });
    let restId: string;
    let graphqlId: string;
    try {
      const auth = { authorization: 'Bearer tracing-test-admin-token-0123' };
      const rest = await fetch(`${run.url}/teams`, { headers: auth });
      expect(rest.status).toBe(200);
      restId = rest.headers.get('x-request-id')!;
      const graphql = await fetch(`${run.url}/graphql`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'query Teams { teams { id name } settings { currency } }' }),
      });
      expect(await graphql.json()).toEqual({ data: { teams: [], settings: { currency: null } } });
      graphqlId = graphql.headers.get('x-request-id')!;
    } finally {
      run.child.kill('SIGTERM'); // the shutdown sends what is still buffered
    }
    expect(await run.exited).toBe(0);
    expect(receiver.contentTypes.every((type) => type === 'application/json')).toBe(true);

    const requestSpan = (id: string): ReceivedSpan => {
      const found = receiver.spans.filter(
        (span) => span.scope === '@fastify/otel' && span.attributes['gateway.request_id'] === id,
      );
      expect(found.map((span) => span.name)).toEqual(['request']);
      expect(found[0].parentSpanId).toBe('');
      expect(found[0].resource['service.name']).toBe('gateway-under-test');
      return found[0];
    };

    const restRequest = requestSpan(restId);
    expect(restRequest.attributes['http.route']).toBe('/teams');
    const restTrace = traceOf(receiver.spans, restRequest.traceId);
    const restQueries = restTrace.filter((span) => span.attributes['db.system.name'] === 'mongodb');
    expect(restQueries.length).toBeGreaterThan(0);
    expect(restQueries.every((span) => descendsFrom(restTrace, span, restRequest))).toBe(true);
    expect(restQueries.map((span) => span.attributes['db.collection.name'])).toContain('teams');

    const graphqlRequest = requestSpan(graphqlId);
    expect(graphqlRequest.attributes['http.route']).toBe('/graphql');
    const graphqlTrace = traceOf(receiver.spans, graphqlRequest.traceId);
    const names = graphqlTrace.map((span) => span.name);
    expect(names).toEqual(
      expect.arrayContaining(['query Teams', 'graphql.resolve teams', 'graphql.resolve settings']),
    );
    const resolvers = graphqlTrace
      .filter((span) => span.name.startsWith('graphql.resolve'))
      .map((span) => span.attributes['graphql.field.path']);
    expect(resolvers).toEqual(expect.arrayContaining(['teams', 'settings']));
    const graphqlQueries = graphqlTrace.filter(
      (span) => span.attributes['db.system.name'] === 'mongodb',
    );
    expect(graphqlQueries.map((span) => span.attributes['db.collection.name'])).toEqual(
      expect.arrayContaining(['teams', 'settings']),
    );
    // Nothing of one request's trace lands in the other's.
    expect(restTrace.some((span) => span.traceId === graphqlRequest.traceId)).toBe(false);
  });
});
