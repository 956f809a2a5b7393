import path from 'node:path';
import { inspect } from 'node:util';
import { CRM_PROVIDERS, type CrmProvider } from './crm/connector';
import {
  DEFAULT_SNAPSHOT_RETENTION_DAYS,
  MAX_SNAPSHOT_RETENTION_DAYS,
} from './domain/snapshot-retention';

/** Log levels pino knows; LOG_LEVEL must be one of them. */
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Every setting of the gateway, read once from the environment at start. Each field documents
 * its variable and default; docs/configuration.md mirrors this list (a test checks it).
 */
export interface GatewayConfig {
  /** PORT, default 4000. 0 asks the system for a free port (tests). */
  port: number;
  /** HOST, default 127.0.0.1. */
  host: string;
  /** MONGODB_URI: an external MongoDB; unset means the embedded server. */
  mongodbUri: string | undefined;
  /** DATA_DIR, default `./data`: embedded database files, generated admin token and JWT key. */
  dataDir: string;
  /** ADMIN_TOKEN: bootstrap admin secret; generated and kept in DATA_DIR when unset. */
  adminToken: string | undefined;
  /** JWT_SECRET: HS256 key (at least 32 characters); generated and kept when unset. */
  jwtSecret: string | undefined;
  /** JWT_ISSUER, default `pipeline-gateway`. */
  jwtIssuer: string;
  /** JWT_AUDIENCE, default `pipeline-gateway`. */
  jwtAudience: string;
  /** BODY_LIMIT in bytes, default 1048576 (1 MiB). */
  bodyLimit: number;
  /**
   * RATE_LIMIT, default 600: requests per window per token subject (else client address); 0 turns
   * limiting off. Generous for people and dashboards (10 a second sustained), a wall for a script
   * looping over the API with one token.
   */
  rateLimit: number;
  /** RATE_LIMIT_WINDOW in seconds, default 60. */
  rateLimitWindowSeconds: number;
  /**
   * RATE_LIMIT_REDIS_URL: share the counters through Redis,
   * `redis://[[user]:password@]host[:port][/db]` (`rediss://` for TLS); unset: in memory. A Secret:
   * the URL may hold a password.
   */
  rateLimitRedisUrl: Secret | undefined;
  /**
   * REQUEST_TIMEOUT_MS, default 10000: a request still unanswered then gets 503, or 408 and a closed
   * connection when its body has not all arrived (0 turns it off).
   */
  requestTimeoutMs: number;
  /** HEADERS_TIMEOUT_MS, default 10000: a connection whose request headers take longer gets 408 and is closed. */
  headersTimeoutMs: number;
  /**
   * CACHE_MAX_AGE_MS, default 5000: the longest a cached read of mutable data (settings, members,
   * teams, targets, kept answers) is used. Writes through the gateway, its CLIs and its other
   * instances are seen at once whatever this is; it bounds how long a write by another tool
   * straight into the database goes unseen. 0: nothing mutable is cached.
   */
  cacheMaxAgeMs: number;
  /** KEEP_ALIVE_TIMEOUT_MS, default 5000: an idle kept-alive connection is closed then (above a proxy's idle timeout). */
  keepAliveTimeoutMs: number;
  /**
   * MAX_CONNECTIONS, default 1024: open connections at most. At the cap, idle kept-alive
   * connections are closed to make room; when none is idle, a new connection is closed as it
   * arrives (0 turns the cap off).
   */
  maxConnections: number;
  /**
   * MAX_CONNECTIONS_PER_ADDRESS, default 256: open connections from one client address at most;
   * more are closed as they arrive (0 turns the cap off). Behind a reverse proxy every connection
   * comes from the proxy's address: raise it to MAX_CONNECTIONS there.
   */
  maxConnectionsPerAddress: number;
  /** SHUTDOWN_GRACE_MS, default 30000: on SIGTERM/SIGINT, the longest wait for in-flight requests (imports included). */
  shutdownGraceMs: number;
  /** INTROSPECTION, default `admins`: who may query `__schema`/`__type` (`admins`, `all`, `off`). */
  introspection: 'admins' | 'all' | 'off';
  /** LOG_LEVEL, default `info`. */
  logLevel: LogLevel;
  /**
   * SEED_DEMO, default true: load the demo company into an empty embedded database at start.
   * Never with MONGODB_URI (an external database is never seeded).
   */
  seedDemo: boolean;
  /**
   * HUBSPOT_TOKEN: the HubSpot private-app access token the sync reads with; unset: no sync. A
   * Secret, so printing or logging the configuration shows `[redacted]`, never the token.
   */
  hubspotToken: Secret | undefined;
  /** HUBSPOT_BASE_URL, default `https://api.hubapi.com`: where HubSpot's API is (an http(s) URL, no trailing slash kept). */
  hubspotBaseUrl: string;
  /** CRM_PROVIDER, default `hubspot`: the CRM a sync reads, `hubspot` or `salesforce` (docs/crm-sync.md). */
  crmProvider: CrmProvider;
  /**
   * SALESFORCE_LOGIN_URL, default `https://login.salesforce.com`: where the sync asks for its
   * access token (`/services/oauth2/token`); for the client-credentials flow, the org's My Domain
   * URL (`https://<domain>.my.salesforce.com`). The token's answer names the instance to call.
   */
  salesforceLoginUrl: string;
  /** SALESFORCE_CLIENT_ID: the consumer key of the connected app (or external client app). */
  salesforceClientId: string | undefined;
  /** SALESFORCE_CLIENT_SECRET: its consumer secret. A Secret: never logged, stored or answered. */
  salesforceClientSecret: Secret | undefined;
  /** SALESFORCE_API_VERSION, default `v62.0`: the REST API version in `/services/data/<version>/`. */
  salesforceApiVersion: string;
  /**
   * SALESFORCE_API_LIMIT_PERCENT, default 80: a Salesforce sync stops (and fails, keeping nothing)
   * before the org's API requests of the last 24 hours pass this share of its daily allowance, as
   * Salesforce reports both on every answer (`Sforce-Limit-Info`), leaving the rest to other
   * integrations.
   */
  salesforceApiLimitPercent: number;
  /**
   * SYNC_INTERVAL_MINUTES, default 0 (off): run a HubSpot sync this often inside the gateway, the
   * first one when it starts. Needs HUBSPOT_TOKEN. Several instances may have it on: the sync lease
   * lets one of them sync at a time.
   */
  syncIntervalMinutes: number;
  /**
   * SYNC_LEASE_SECONDS, default 60: how long the lease of a running sync lasts without renewal (it
   * is renewed every third of it). A sync whose process died blocks the next one this long at most.
   */
  syncLeaseSeconds: number;
  /**
   * SNAPSHOT_RETENTION_DAYS, default 14: after each import, snapshots dated this many days or more
   * before the latest one are removed, except the last one of each period (what time series
   * read), the latest written and the demo company's (docs/importing.md, "Snapshot retention").
   */
  snapshotRetentionDays: number;
  /**
   * WEBHOOK_RETRY_SCHEDULE, default `5s,5m,30m,2h,5h,10h`: the delays before each retry of a
   * webhook delivery that failed (durations: a number and `ms`, `s`, `m` or `h`); after the last
   * one fails the endpoint is disabled. In milliseconds here.
   */
  webhookRetryScheduleMs: number[];
  /**
   * WEBHOOK_ALLOW_PRIVATE_URLS, default false: let webhook urls resolve to loopback, private,
   * link-local or other non-public addresses (a gateway whose receivers are on its own network).
   */
  webhookAllowPrivateUrls: boolean;
  /** WEBHOOK_TIMEOUT_MS, default 10000: the longest a webhook delivery waits for its answer. */
  webhookTimeoutMs: number;
  /**
   * EVENTS_POLL_MS, default 250: how often an instance reads the outbox for new events (for its
   * subscribers and webhooks) and due deliveries; events committed by any instance reach
   * subscribers within about this time.
   */
  eventsPollMs: number;
  /** EVENT_RETENTION_DAYS, default 7: delivered events and finished deliveries older than this are removed. */
  eventRetentionDays: number;
  /**
   * CORS_ORIGINS: comma-separated origins (`https://app.example.com`) whose pages may call the
   * gateway from a browser; none by default (src/security/cors.ts).
   */
  corsOrigins: string[];
  /**
   * METRICS_TOKEN: a token that may read `GET /metrics` and nothing else. Unset: only admins
   * may (docs/security.md, "Metrics"). A Secret.
   */
  metricsToken: Secret | undefined;
  /** Traces sent over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set; null: tracing off. */
  tracing: TracingConfig | null;
}

/** OpenTelemetry tracing (src/telemetry/): read before anything else loads, by loadTracingConfig. */
export interface TracingConfig {
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the collector's base URL; spans go to `<it>/v1/traces`. */
  endpoint: string;
  /** OTEL_SERVICE_NAME, default `pipeline-gateway`. */
  serviceName: string;
}

/**
 * A secret value from the environment. It prints, serialises and inspects as `[redacted]`, so a
 * configuration logged or put in an error message cannot leak it; `reveal()` is the one way in.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  /** The secret itself, for the one place that sends it (an Authorization header). */
  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return '[redacted]';
  }

  toJSON(): string {
    return '[redacted]';
  }

  [inspect.custom](): string {
    return 'Secret([redacted])';
  }
}

/** Requests per RATE_LIMIT_WINDOW (60 s) per caller when RATE_LIMIT is unset. */
export const DEFAULT_RATE_LIMIT = 600;

/** A bad environment variable; the message names the variable, what was expected and what came. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function text(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

function flag(env: Env, name: string, fallback: boolean): boolean {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  const lower = raw.toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(lower)) return true;
  if (['0', 'false', 'no', 'off'].includes(lower)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

/**
 * A Redis URL as ioredis reads it: `redis://` or `rediss://` (TLS), a host, optional credentials,
 * port and db number, no query (ioredis would take it as client options). The messages never
 * show the value, which may hold a password.
 */
function redisUrl(name: string, raw: string | undefined): Secret | undefined {
  if (raw === undefined) return undefined;
  const expected = `${name} must look like redis://[[user]:password@]host[:port][/db] (rediss:// for TLS)`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${expected}; the value set is not a URL`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:')
    throw new ConfigError(`${expected}; the value set has another scheme`);
  if (url.hostname === '') throw new ConfigError(`${expected}; the value set names no host`);
  if (url.pathname !== '' && url.pathname !== '/' && !/^\/\d+$/.test(url.pathname))
    throw new ConfigError(`${expected}; the path after the host must be a db number (/0, /1, …)`);
  if (url.search !== '' || url.hash !== '')
    throw new ConfigError(`${expected}; the value set has a query or fragment (?… or #…)`);
  return new Secret(raw);
}

const DURATION_UNITS_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const;

/** A comma-separated list of 1 to 20 durations (`500ms`, `5s`, `30m`, `2h`), each up to a day, in ms. */
function durations(name: string, raw: string): number[] {
  const parts = raw.split(',').map((part) => part.trim());
  const expected = `${name} must be 1 to 20 comma-separated durations such as 5s,5m,30m,2h (units ms, s, m, h; each at most 24h), got "${raw}"`;
  if (parts.length > 20) throw new ConfigError(expected);
  return parts.map((part) => {
    const match = /^(\d{1,9})(ms|s|m|h)$/.exec(part);
    if (!match) throw new ConfigError(expected);
    const ms = Number(match[1]) * DURATION_UNITS_MS[match[2] as keyof typeof DURATION_UNITS_MS];
    if (ms > 86_400_000) throw new ConfigError(expected);
    return ms;
  });
}

/**
 * A URI with its password, if any, replaced by `****`: what messages show of a URI that may carry
 * credentials (`mongodb://user:pass@host/db` reads `mongodb://user:****@host/db`). Everything up
 * to the last `@` counts as credentials, so a password with an unencoded `@` or `/` is hidden too.
 */
export function maskUri(uri: string): string {
  const match = /^([a-z][a-z0-9+.-]*:\/\/)(.*)@/is.exec(uri);
  if (match === null) return uri;
  const [whole, scheme, userinfo] = match;
  const colon = userinfo.indexOf(':');
  return colon < 0 ? uri : `${scheme}${userinfo.slice(0, colon)}:****@${uri.slice(whole.length)}`;
}

/** CORS_ORIGINS: origins as a browser sends them in `Origin` (scheme, host, port; no path). */
function origins(env: Env): string[] {
  const raw = text(env, 'CORS_ORIGINS');
  if (raw === undefined) return [];
  const expected =
    'CORS_ORIGINS must list origins as browsers send them, scheme://host[:port] with no path, separated by commas (https://app.example.com,http://localhost:5173)';
  return raw
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '')
    .map((origin) => {
      if (!/^https?:\/\/[^/?#@\s]+$/i.test(origin))
        throw new ConfigError(`${expected}, got "${origin}"`);
      try {
        return new URL(origin).origin;
      } catch {
        throw new ConfigError(`${expected}, got "${origin}"`);
      }
    });
}

/**
 * The tracing settings alone: the entry reads them before loading anything else, since tracing
 * must be set up before the modules it instruments load (src/telemetry/). Null when
 * OTEL_EXPORTER_OTLP_ENDPOINT is unset.
 */
export function loadTracingConfig(env: Env = process.env): TracingConfig | null {
  const raw = text(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  if (raw === undefined) return null;
  if (!/^https?:\/\/[^/\s]+(\/\S*)?$/.test(raw))
    throw new ConfigError(
      `OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL (the collector's OTLP/HTTP base, e.g. http://localhost:4318), got "${maskUri(raw)}"`,
    );
  return {
    endpoint: raw.replace(/\/+$/, ''),
    serviceName: text(env, 'OTEL_SERVICE_NAME') ?? 'pipeline-gateway',
  };
}

/** Reads and validates the configuration; throws ConfigError naming the first bad variable. */
export function loadConfig(env: Env = process.env): GatewayConfig {
  const logLevel = (text(env, 'LOG_LEVEL') ?? 'info').toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new ConfigError(
      `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${env.LOG_LEVEL}"`,
    );
  }
  const mongodbUri = text(env, 'MONGODB_URI');
  if (mongodbUri !== undefined && !/^mongodb(\+srv)?:\/\//.test(mongodbUri)) {
    throw new ConfigError(
      `MONGODB_URI must start with mongodb:// or mongodb+srv://, got "${maskUri(mongodbUri)}"`,
    );
  }
  const adminToken = text(env, 'ADMIN_TOKEN');
  if (adminToken !== undefined && adminToken.length < 16) {
    throw new ConfigError(`ADMIN_TOKEN must be at least 16 characters, got ${adminToken.length}`);
  }
  if (adminToken !== undefined && !/^[\x21-\x7e]+$/.test(adminToken)) {
    throw new ConfigError(
      'ADMIN_TOKEN must be visible ASCII characters without spaces (it travels as "Authorization: Bearer <token>")',
    );
  }
  const introspection = (text(env, 'INTROSPECTION') ?? 'admins').toLowerCase();
  if (introspection !== 'admins' && introspection !== 'all' && introspection !== 'off') {
    throw new ConfigError(
      `INTROSPECTION must be one of admins, all, off, got "${env.INTROSPECTION}"`,
    );
  }
  const rateLimitRedisUrl = redisUrl('RATE_LIMIT_REDIS_URL', text(env, 'RATE_LIMIT_REDIS_URL'));
  const jwtSecret = text(env, 'JWT_SECRET');
  if (jwtSecret !== undefined && jwtSecret.length < 32) {
    throw new ConfigError(`JWT_SECRET must be at least 32 characters, got ${jwtSecret.length}`);
  }
  const hubspotToken = text(env, 'HUBSPOT_TOKEN');
  // The message never shows the value: it is a secret, and this error may be logged.
  if (hubspotToken !== undefined && !/^[\x21-\x7e]+$/.test(hubspotToken)) {
    throw new ConfigError(
      'HUBSPOT_TOKEN must be visible ASCII characters without spaces (it travels as "Authorization: Bearer <token>")',
    );
  }
  const metricsToken = text(env, 'METRICS_TOKEN');
  // The message never shows the value: it is a secret.
  if (
    metricsToken !== undefined &&
    (metricsToken.length < 16 || !/^[\x21-\x7e]+$/.test(metricsToken))
  )
    throw new ConfigError(
      'METRICS_TOKEN must be at least 16 visible ASCII characters without spaces (it travels as "Authorization: Bearer <token>")',
    );
  const hubspotBaseUrl = (text(env, 'HUBSPOT_BASE_URL') ?? 'https://api.hubapi.com').replace(
    /\/+$/,
    '',
  );
  if (!/^https?:\/\/[^/\s]+(\/\S*)?$/.test(hubspotBaseUrl)) {
    throw new ConfigError(
      `HUBSPOT_BASE_URL must be an http:// or https:// URL, got "${env.HUBSPOT_BASE_URL}"`,
    );
  }
  const crmProvider = (text(env, 'CRM_PROVIDER') ?? 'hubspot').toLowerCase();
  if (!(CRM_PROVIDERS as readonly string[]).includes(crmProvider)) {
    throw new ConfigError(
      `CRM_PROVIDER must be one of ${CRM_PROVIDERS.join(', ')}, got "${env.CRM_PROVIDER}"`,
    );
  }
  const salesforceLoginUrl = (
    text(env, 'SALESFORCE_LOGIN_URL') ?? 'https://login.salesforce.com'
  ).replace(/\/+$/, '');
  if (!/^https?:\/\/[^/\s?#]+$/.test(salesforceLoginUrl)) {
    throw new ConfigError(
      `SALESFORCE_LOGIN_URL must be an http:// or https:// origin such as https://login.salesforce.com, got "${env.SALESFORCE_LOGIN_URL}"`,
    );
  }
  const salesforceApiVersion = text(env, 'SALESFORCE_API_VERSION') ?? 'v62.0';
  if (!/^v\d{2,3}\.0$/.test(salesforceApiVersion)) {
    throw new ConfigError(
      `SALESFORCE_API_VERSION must look like v62.0, got "${env.SALESFORCE_API_VERSION}"`,
    );
  }
  const salesforceClientSecret = text(env, 'SALESFORCE_CLIENT_SECRET');
  return {
    port: integer(env, 'PORT', 4000, 0, 65535),
    host: text(env, 'HOST') ?? '127.0.0.1',
    mongodbUri,
    dataDir: path.resolve(text(env, 'DATA_DIR') ?? 'data'),
    adminToken,
    jwtSecret,
    jwtIssuer: text(env, 'JWT_ISSUER') ?? 'pipeline-gateway',
    jwtAudience: text(env, 'JWT_AUDIENCE') ?? 'pipeline-gateway',
    bodyLimit: integer(env, 'BODY_LIMIT', 1024 * 1024, 1024, 100 * 1024 * 1024),
    rateLimit: integer(env, 'RATE_LIMIT', DEFAULT_RATE_LIMIT, 0, 1_000_000),
    rateLimitWindowSeconds: integer(env, 'RATE_LIMIT_WINDOW', 60, 1, 86_400),
    rateLimitRedisUrl,
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT_MS', 10_000, 0, 600_000),
    headersTimeoutMs: integer(env, 'HEADERS_TIMEOUT_MS', 10_000, 100, 600_000),
    keepAliveTimeoutMs: integer(env, 'KEEP_ALIVE_TIMEOUT_MS', 5_000, 100, 600_000),
    cacheMaxAgeMs: integer(env, 'CACHE_MAX_AGE_MS', 5_000, 0, 86_400_000),
    maxConnections: integer(env, 'MAX_CONNECTIONS', 1024, 0, 1_000_000),
    maxConnectionsPerAddress: integer(env, 'MAX_CONNECTIONS_PER_ADDRESS', 256, 0, 1_000_000),
    shutdownGraceMs: integer(env, 'SHUTDOWN_GRACE_MS', 30_000, 0, 3_600_000),
    introspection,
    logLevel: logLevel as LogLevel,
    seedDemo: flag(env, 'SEED_DEMO', true) && mongodbUri === undefined,
    hubspotToken: hubspotToken === undefined ? undefined : new Secret(hubspotToken),
    hubspotBaseUrl,
    crmProvider: crmProvider as CrmProvider,
    salesforceLoginUrl,
    salesforceClientId: text(env, 'SALESFORCE_CLIENT_ID'),
    salesforceClientSecret:
      salesforceClientSecret === undefined ? undefined : new Secret(salesforceClientSecret),
    salesforceApiVersion,
    salesforceApiLimitPercent: integer(env, 'SALESFORCE_API_LIMIT_PERCENT', 80, 1, 100),
    syncIntervalMinutes: integer(env, 'SYNC_INTERVAL_MINUTES', 0, 0, 10_080),
    syncLeaseSeconds: integer(env, 'SYNC_LEASE_SECONDS', 60, 3, 3_600),
    snapshotRetentionDays: integer(
      env,
      'SNAPSHOT_RETENTION_DAYS',
      DEFAULT_SNAPSHOT_RETENTION_DAYS,
      1,
      MAX_SNAPSHOT_RETENTION_DAYS,
    ),
    webhookRetryScheduleMs: durations(
      'WEBHOOK_RETRY_SCHEDULE',
      text(env, 'WEBHOOK_RETRY_SCHEDULE') ?? '5s,5m,30m,2h,5h,10h',
    ),
    webhookAllowPrivateUrls: flag(env, 'WEBHOOK_ALLOW_PRIVATE_URLS', false),
    webhookTimeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    eventsPollMs: integer(env, 'EVENTS_POLL_MS', 250, 10, 60_000),
    eventRetentionDays: integer(env, 'EVENT_RETENTION_DAYS', 7, 1, 3_650),
    corsOrigins: origins(env),
    metricsToken: metricsToken === undefined ? undefined : new Secret(metricsToken),
    tracing: loadTracingConfig(env),
  };
}
