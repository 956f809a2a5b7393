import http from 'node:http';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { Connection } from 'mongoose';
import pino, { type DestinationStream, type Logger } from 'pino';
import { Authenticator } from '../auth/authenticator';
import { DataAccess } from '../data/data-access';
import { TokenSigner } from '../auth/jwt';
import { loadSecrets, readStoredAdminToken, type GatewaySecrets } from '../auth/secrets';
import type { GatewayConfig } from '../config';
import { MethodNotAllowedError, NotFoundError } from '../errors';
import { graphiqlPlugin } from '../explorer/graphiql.plugin';
import { registerRootRoute } from '../explorer/root.route';
import { mountGraphQL } from '../graphql/apollo';
import { buildGatewaySchema } from '../graphql/build-schema';
import type { RestRouteConfig } from '../rest/register-routes';
import { registerRestRoutes } from '../rest/register-routes';
import type { RouteDefinition } from '../rest/route-definition';
import { ROUTES } from '../rest/routes';
import { classifyError } from './classify-error';
import { ContextBuilder } from './context-builder';
import { HttpEdge } from './http-edge';
import { shapeErrorBody } from './error-envelope';
import { registerJsonBodyParser } from './json-body-parser';
import { logDestination } from './log-destination';
import { MethodTable } from './method-table';
import { LOG_REDACTION } from '../security/log-redaction';
import { MemoryRateLimitStore } from '../security/rate-limit/memory-store';
import { registerRateLimit } from '../security/rate-limit/rate-limit.hook';
import { RateLimiter } from '../security/rate-limit/rate-limiter';
import { RedisRateLimitStore } from '../security/rate-limit/redis-store';
import { registerAccessLog } from '../security/access-log';
import { registerAuthentication } from '../security/authentication.hook';
import { registerRequestTimeout } from '../security/request-timeout';
import { registerUrlLimit } from '../security/url-limit';
import { Idempotency } from '../security/idempotency/idempotency';
import { setSecurityHeaders } from '../security/security-headers';
import { registerCors } from '../security/cors';
import { GatewayMetrics } from '../telemetry/gateway-metrics';
import { graphqlMetricsPlugin } from '../telemetry/graphql-metrics.plugin';
import { registerHttpMetrics } from '../telemetry/http-metrics.hook';
import { registerMetricsRoute } from '../telemetry/metrics.route';
import { REQUEST_ID_HEADER, requestIdFor } from './request-id';
import type { HubSpotClientOptions } from '../crm/hubspot/hubspot-client';
import type { CrmClientOptions } from '../crm/connector-from-config';
import { createGatewaySync } from '../sync/gateway-sync';
import { ALERTS_PRINCIPAL, deriveAlerts } from '../events/alerts/derive-alerts';
import { deriveDealEvents } from '../events/deal-events';
import { EventsRuntime } from '../events/events-runtime';
import { RequestActivity } from './request-activity';
import { mountSubscriptions } from '../graphql/subscriptions/mount-subscriptions';

export interface BuildAppOptions {
  /** The open mongoose connection the models use (from connectDatabase()). */
  connection: Connection;
  config: GatewayConfig;
  /** Already resolved secrets; loaded from the environment / data directory / database when omitted. */
  secrets?: GatewaySecrets;
  /** Routes registered after ROUTES (tests use this for fault injection). */
  extraRoutes?: readonly RouteDefinition[];
  /** Defaults to a pino logger at config.logLevel, with credentials redacted. */
  logger?: Logger;
  /** Where that default logger writes (stdout when omitted: JSON lines, readable ones on a terminal); tests capture the log stream with it. */
  logStream?: DestinationStream;
  /** HubSpot client settings beyond HUBSPOT_BASE_URL and HUBSPOT_TOKEN (tests shorten the backoff). */
  hubspotClient?: Omit<HubSpotClientOptions, 'baseUrl' | 'token'>;
  /** Salesforce client settings beyond the SALESFORCE_* variables (tests shorten the backoff). */
  salesforceClient?: CrmClientOptions['salesforce'];
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Set on the start that generated the admin token, so the entry can print it once. */
    generatedAdminToken: string | null;
    /** Signs member tokens with the app's key (tests use it to mint expired or odd tokens). */
    tokenSigner: TokenSigner;
    /** The instance's events: the outbox's reader, webhook deliveries, and their metrics. */
    events: EventsRuntime;
  }
}

/**
 * Composes the gateway: fastify on a DEL-aware HTTP server, request ids, the JSON body parser,
 * REST routes, GraphQL at /graphql, and one error edge rendering every failure as the
 * documented envelope. Returns the app, not yet listening.
 */
export async function buildApp(options: BuildAppOptions): Promise<FastifyInstance> {
  const { config, connection } = options;
  const logger =
    options.logger ??
    pino({ level: config.logLevel, redact: LOG_REDACTION }, options.logStream ?? logDestination());
  const secrets = options.secrets ?? (await loadSecrets(config, connection));
  const signer = new TokenSigner({
    secret: secrets.jwtSecret,
    issuer: config.jwtIssuer,
    audience: config.jwtAudience,
  });
  const access = new DataAccess({
    connection,
    cacheMaxAgeMs: config.cacheMaxAgeMs,
    snapshotRetentionDays: config.snapshotRetentionDays,
  });
  await access.ready();
  const authenticator = new Authenticator({
    signer,
    adminToken: secrets.sharedAdminToken
      ? { kind: 'stored', read: () => readStoredAdminToken(connection) }
      : { kind: 'fixed', value: secrets.adminToken },
    access,
  });
  const limiter =
    config.rateLimit > 0
      ? new RateLimiter({
          limit: config.rateLimit,
          windowSeconds: config.rateLimitWindowSeconds,
          store: config.rateLimitRedisUrl
            ? new RedisRateLimitStore(config.rateLimitRedisUrl)
            : new MemoryRateLimitStore(),
        })
      : undefined;

  /** What every answer starts with: the security headers and the request id. */
  function startReply(request: FastifyRequest, reply: FastifyReply): void {
    setSecurityHeaders(reply);
    reply.header(REQUEST_ID_HEADER, request.id);
  }

  /** The one rendering of an error: the client's error and the body the route speaks. */
  function describeError(error: unknown, request: FastifyRequest) {
    const { error: clientError, unexpected } = classifyError(error, request.id, {
      bodyLimit: request.routeOptions.bodyLimit ?? config.bodyLimit,
      contentType: request.headers['content-type'],
    });
    const route = request.routeOptions.config as RestRouteConfig | undefined;
    return { clientError, unexpected, body: shapeErrorBody(clientError, route) };
  }

  function renderError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
    const { clientError, unexpected, body } = describeError(error, request);
    if (unexpected) request.log.error({ err: error, requestId: request.id }, 'unexpected error');
    return reply.code(clientError.status).headers(clientError.headers).send(body);
  }

  const idempotency = new Idempotency({
    log: logger,
    // What renderError sends, as bytes: what a retry with the same key is replayed.
    errorAnswer: (error, request) => {
      const { clientError, body } = describeError(error, request);
      return {
        status: clientError.status,
        contentType: 'application/json; charset=utf-8',
        body: Buffer.from(JSON.stringify(body)),
      };
    },
  });

  const edge = new HttpEdge({
    limits: {
      requestTimeoutMs: config.requestTimeoutMs,
      headersTimeoutMs: config.headersTimeoutMs,
      keepAliveTimeoutMs: config.keepAliveTimeoutMs,
      maxConnections: config.maxConnections,
      maxConnectionsPerAddress: config.maxConnectionsPerAddress,
    },
    log: logger,
  });
  const app: FastifyInstance = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    bodyLimit: config.bodyLimit,
    genReqId: requestIdFor,
    serverFactory: (handler) => edge.createServer(handler),
    clientErrorHandler: edge.handleClientError,
    // Requests fastify refuses before routing (a path that does not percent-decode, a parameter
    // over the router's length limit, which build-app sets out of reach) run no hook: they get the
    // headers and the envelope here.
    frameworkErrors: (error, request, reply) => {
      startReply(request, reply);
      renderError(error, request, reply);
    },
    // A path parameter as long as a request head may be: the router then matches every request
    // it can, and a URL over MAX_URL_BYTES is answered 414 by the hooks (security/url-limit.ts).
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: http.maxHeaderSize },
    // One line per request from src/security/access-log.ts instead (route, status, subject).
    logController: new LogController({ disableRequestLogging: true }),
  });
  // The contract lets GET routes take their input as a JSON body too.
  app.addHttpMethod('GET', { hasBody: true, overrideExisting: true });
  app.decorate('generatedAdminToken', secrets.generatedAdminToken);
  app.decorate('tokenSigner', signer);
  const sync = createGatewaySync(app, {
    config,
    queue: access.imports,
    logger,
    clientOptions: { hubspot: options.hubspotClient, salesforce: options.salesforceClient },
    onRunEnded: (run) => metrics.syncEnded(run),
  });
  const metrics = new GatewayMetrics({
    caches: {
      rest_answers: access.restAnswers.stats,
      graphql_answers: access.graphqlAnswers.stats,
      snapshots: access.snapshots.stats.snapshots,
      snapshot_facts: access.snapshots.stats.facts,
    },
    crmBudget: () => sync.sync.apiBudget(),
  });
  access.imports.onImportEnded(metrics.importEnded);
  // Deal events and alerts are derived when a snapshot's events are published, in a context of their own.
  const activity = new RequestActivity();
  const events: EventsRuntime = new EventsRuntime({
    connection,
    config,
    logger,
    busy: () => activity.busy(),
    derive: async (snapshot, previous) => {
      const context = () => contexts.detached(ALERTS_PRINCIPAL, `events-${snapshot._id}`);
      return [
        ...(await deriveDealEvents(context, snapshot, previous)),
        ...(await deriveAlerts(context, snapshot, previous)),
      ];
    },
  });
  metrics.observeEvents(events);
  app.decorate('events', events);
  app.addHook('onReady', async () => events.start());
  app.addHook('onClose', async () => events.stop());
  const contexts = new ContextBuilder(signer, access, sync, {
    allowPrivateUrls: config.webhookAllowPrivateUrls,
    nudge: () => events.nudge(),
  });

  const methods = new MethodTable();
  app.addHook('onRoute', (route) => methods.add(route.url, route.method));
  // First, so that every answer from here on carries them.
  app.addHook('onRequest', (request, reply, done) => {
    startReply(request, reply);
    done();
  });
  activity.register(app);
  await registerCors(app, config.corsOrigins);
  registerRequestTimeout(app, config.requestTimeoutMs, idempotency);
  registerAuthentication(app, authenticator, access);
  registerAccessLog(app, logger);
  if (limiter) registerRateLimit(app, limiter);
  registerUrlLimit(app);
  registerJsonBodyParser(app);
  // A write on this instance published its events already: read them now, not at the next poll.
  app.addHook('onResponse', (request, _reply, done) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') events.nudge();
    done();
  });
  registerHttpMetrics(app, metrics);

  app.setErrorHandler(renderError);
  app.setNotFoundHandler((request, reply) => {
    const pathname = request.url.split('?')[0];
    const allowed = methods.allowed(pathname);
    const error =
      allowed.length > 0
        ? new MethodNotAllowedError(request.method, pathname, allowed)
        : new NotFoundError(`No route ${request.method} ${pathname}`);
    return reply.code(error.status).headers(error.headers).send(shapeErrorBody(error, undefined));
  });

  await app.register(graphiqlPlugin); // GraphiQL page + assets; before /graphql so its HTML hook applies
  registerRestRoutes(
    app,
    [...ROUTES, ...(options.extraRoutes ?? [])],
    contexts,
    access.restAnswers,
    idempotency,
  );
  const schema = await buildGatewaySchema();
  registerMetricsRoute(app, metrics, config.metricsToken);
  registerRootRoute(app);
  await mountGraphQL(app, schema, contexts, logger, {
    introspection: config.introspection,
    answers: access.graphqlAnswers,
    plugins: [graphqlMetricsPlugin(metrics)],
    // Traced, every operation runs on graphql-js, whose execution the GraphQL instrumentation
    // follows resolver by resolver (compiled queries would show no resolver spans).
    compiled: config.tracing === null,
    idempotency,
  });
  mountSubscriptions(app, {
    schema,
    authenticator,
    access,
    contexts,
    events,
    logger,
    allowedOrigins: config.corsOrigins,
    pollMs: config.eventsPollMs,
  });
  app.addHook('onClose', async () => idempotency.close());
  return app;
}
