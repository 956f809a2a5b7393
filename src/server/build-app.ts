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
import { loadSecrets, type GatewaySecrets } from '../auth/secrets';
import type { GatewayConfig } from '../config';
import { MethodNotAllowedError, NotFoundError } from '../errors';
import { graphiqlPlugin } from '../explorer/graphiql.plugin';
import { mountGraphQL } from '../graphql/apollo';
import { buildGatewaySchema } from '../graphql/build-schema';
import type { RestRouteConfig } from '../rest/register-routes';
import { registerRestRoutes } from '../rest/register-routes';
import type { RouteDefinition } from '../rest/route-definition';
import { ROUTES } from '../rest/routes';
import { classifyError } from './classify-error';
import { ContextBuilder } from './context-builder';
import { handleClientError } from './client-error';
import { createHttpServer, type DelMethodMode } from './create-http-server';
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
import { RequestBudget } from '../security/request-budget';
import { registerRequestTimeout } from '../security/request-timeout';
import { setSecurityHeaders } from '../security/security-headers';
import { REQUEST_ID_HEADER, requestIdFor } from './request-id';
import type { HubSpotClientOptions } from '../crm/hubspot/hubspot-client';
import { createGatewaySync } from '../sync/gateway-sync';
import { ALERTS_PRINCIPAL, deriveAlerts } from '../events/alerts/derive-alerts';
import { EventsRuntime } from '../events/events-runtime';
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
  /** How `DEL` requests are accepted; the fastest this Node allows when omitted (tests set both). */
  delMethodMode?: DelMethodMode;
  /** HubSpot client settings beyond HUBSPOT_BASE_URL and HUBSPOT_TOKEN (tests shorten the backoff). */
  hubspotClient?: Omit<HubSpotClientOptions, 'baseUrl' | 'token'>;
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
  const authenticator = new Authenticator({ signer, adminToken: secrets.adminToken, access });
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

  function renderError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
    const { error: clientError, unexpected } = classifyError(error, request.id, {
      bodyLimit: config.bodyLimit,
      contentType: request.headers['content-type'],
    });
    if (unexpected) request.log.error({ err: error, requestId: request.id }, 'unexpected error');
    const route = request.routeOptions.config as RestRouteConfig | undefined;
    return reply
      .code(clientError.status)
      .headers(clientError.headers)
      .send(shapeErrorBody(clientError, route));
  }

  const app: FastifyInstance = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    bodyLimit: config.bodyLimit,
    genReqId: requestIdFor,
    serverFactory: (handler) =>
      createHttpServer(handler, {
        delMethodMode: options.delMethodMode,
        limits: {
          requestBudgetMs: config.requestTimeoutMs,
          headersTimeoutMs: config.headersTimeoutMs,
          keepAliveTimeoutMs: config.keepAliveTimeoutMs,
          maxConnections: config.maxConnections,
        },
      }),
    clientErrorHandler: handleClientError,
    // Requests fastify refuses before routing (a path that does not percent-decode, a parameter
    // over the length limit) run no hook: they get the headers and the envelope here.
    frameworkErrors: (error, request, reply) => {
      startReply(request, reply);
      renderError(error, request, reply);
    },
    routerOptions: { ignoreTrailingSlash: true },
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
    clientOptions: options.hubspotClient,
  });
  // Alerts are derived when a snapshot's events are published, in a context of their own.
  const events: EventsRuntime = new EventsRuntime({
    connection,
    config,
    logger,
    derive: (snapshot, previous) =>
      deriveAlerts(
        () => contexts.detached(ALERTS_PRINCIPAL, `alerts-${snapshot._id}`),
        snapshot,
        previous,
      ),
  });
  app.decorate('events', events);
  app.addHook('onReady', async () => events.start());
  app.addHook('onClose', async () => events.stop());
  const contexts = new ContextBuilder(signer, access, sync, {
    allowPrivateUrls: config.webhookAllowPrivateUrls,
    nudge: () => events.nudge(),
  });
  const budget =
    config.requestTimeoutMs > 0 ? new RequestBudget(config.requestTimeoutMs) : undefined;

  const methods = new MethodTable();
  app.addHook('onRoute', (route) => methods.add(route.url, route.method));
  // First, so that every answer from here on carries them.
  app.addHook('onRequest', (request, reply, done) => {
    startReply(request, reply);
    done();
  });
  registerRequestTimeout(app, budget);
  registerAuthentication(app, authenticator, access);
  registerAccessLog(app, logger);
  if (limiter) registerRateLimit(app, limiter);
  registerJsonBodyParser(app);
  // A write on this instance published its events already: read them now, not at the next poll.
  app.addHook('onResponse', (request, _reply, done) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') events.nudge();
    done();
  });

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
  );
  const schema = await buildGatewaySchema();
  await mountGraphQL(app, schema, contexts, logger, {
    introspection: config.introspection,
    answers: access.graphqlAnswers,
  });
  mountSubscriptions(app, {
    schema,
    authenticator,
    access,
    contexts,
    events,
    logger,
    allowedOrigins: [],
    pollMs: config.eventsPollMs,
  });
  return app;
}
