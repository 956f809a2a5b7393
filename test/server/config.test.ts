import path from 'node:path';
import { ConfigError, loadConfig, maskUri } from '../../src/config';

describe('loadConfig', () => {
  it('gives every variable its default', () => {
    expect(loadConfig({})).toEqual({
      port: 4000,
      host: '127.0.0.1',
      mongodbUri: undefined,
      dataDir: path.resolve('data'),
      adminToken: undefined,
      jwtSecret: undefined,
      jwtIssuer: 'pipeline-gateway',
      jwtAudience: 'pipeline-gateway',
      bodyLimit: 1048576,
      rateLimit: 600,
      rateLimitWindowSeconds: 60,
      rateLimitRedisUrl: undefined,
      requestTimeoutMs: 10000,
      headersTimeoutMs: 10000,
      keepAliveTimeoutMs: 5000,
      cacheMaxAgeMs: 5000,
      maxConnections: 1024,
      maxConnectionsPerAddress: 256,
      shutdownGraceMs: 30000,
      introspection: 'admins',
      logLevel: 'info',
      seedDemo: true,
      crmProvider: 'hubspot',
      hubspotToken: undefined,
      hubspotBaseUrl: 'https://api.hubapi.com',
      salesforceLoginUrl: 'https://login.salesforce.com',
      salesforceClientId: undefined,
      salesforceClientSecret: undefined,
      salesforceApiVersion: 'v62.0',
      salesforceApiLimitPercent: 80,
      syncIntervalMinutes: 0,
      syncLeaseSeconds: 60,
      snapshotRetentionDays: 14,
      webhookRetryScheduleMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000],
      webhookAllowPrivateUrls: false,
      webhookTimeoutMs: 10_000,
      eventsPollMs: 250,
      eventRetentionDays: 7,
      corsOrigins: [],
      metricsToken: undefined,
      tracing: null,
    });
  });

  it('never seeds an external database', () => {
    expect(loadConfig({ MONGODB_URI: 'mongodb://db/crm' }).seedDemo).toBe(false);
    expect(loadConfig({ MONGODB_URI: 'mongodb://db/crm', SEED_DEMO: 'true' }).seedDemo).toBe(false);
    expect(loadConfig({ SEED_DEMO: 'off' }).seedDemo).toBe(false);
  });

  it('reads the environment', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      MONGODB_URI: 'mongodb://db:27017/crm',
      DATA_DIR: '/var/lib/gw',
      ADMIN_TOKEN: 'a'.repeat(20),
      JWT_SECRET: 's'.repeat(32),
      BODY_LIMIT: '2048',
      LOG_LEVEL: 'WARN',
      SEED_DEMO: 'no',
      SYNC_INTERVAL_MINUTES: '15',
      SYNC_LEASE_SECONDS: '120',
      SNAPSHOT_RETENTION_DAYS: '90',
    });
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      mongodbUri: 'mongodb://db:27017/crm',
      dataDir: '/var/lib/gw',
      bodyLimit: 2048,
      logLevel: 'warn',
      seedDemo: false,
      syncIntervalMinutes: 15,
      syncLeaseSeconds: 120,
      snapshotRetentionDays: 90,
    });
  });

  it.each([
    [{ PORT: 'http' }, 'PORT must be an integer from 0 to 65535, got "http"'],
    [{ PORT: '70000' }, 'PORT must be an integer from 0 to 65535, got "70000"'],
    [{ BODY_LIMIT: '1mb' }, 'BODY_LIMIT must be an integer from 1024 to 104857600, got "1mb"'],
    [
      { LOG_LEVEL: 'loud' },
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"',
    ],
    [
      { MONGODB_URI: 'postgres://x' },
      'MONGODB_URI must start with mongodb:// or mongodb+srv://, got "postgres://x"',
    ],
    [{ ADMIN_TOKEN: 'short' }, 'ADMIN_TOKEN must be at least 16 characters, got 5'],
    [
      { ADMIN_TOKEN: 'has spaces inside it' },
      'ADMIN_TOKEN must be visible ASCII characters without spaces (it travels as "Authorization: Bearer <token>")',
    ],
    [{ JWT_SECRET: 'short' }, 'JWT_SECRET must be at least 32 characters, got 5'],
    [{ SEED_DEMO: 'maybe' }, 'SEED_DEMO must be true or false, got "maybe"'],
    [
      { HEADERS_TIMEOUT_MS: '0' },
      'HEADERS_TIMEOUT_MS must be an integer from 100 to 600000, got "0"',
    ],
    [
      { KEEP_ALIVE_TIMEOUT_MS: '5s' },
      'KEEP_ALIVE_TIMEOUT_MS must be an integer from 100 to 600000, got "5s"',
    ],
    [{ MAX_CONNECTIONS: '-1' }, 'MAX_CONNECTIONS must be an integer from 0 to 1000000, got "-1"'],
    [
      { MAX_CONNECTIONS_PER_ADDRESS: 'many' },
      'MAX_CONNECTIONS_PER_ADDRESS must be an integer from 0 to 1000000, got "many"',
    ],
    [
      { SYNC_INTERVAL_MINUTES: '15m' },
      'SYNC_INTERVAL_MINUTES must be an integer from 0 to 10080, got "15m"',
    ],
    [
      { SYNC_INTERVAL_MINUTES: '20000' },
      'SYNC_INTERVAL_MINUTES must be an integer from 0 to 10080, got "20000"',
    ],
    [{ SYNC_LEASE_SECONDS: '1' }, 'SYNC_LEASE_SECONDS must be an integer from 3 to 3600, got "1"'],
    [
      { SNAPSHOT_RETENTION_DAYS: '0' },
      'SNAPSHOT_RETENTION_DAYS must be an integer from 1 to 36500, got "0"',
    ],
    [
      { SNAPSHOT_RETENTION_DAYS: '30d' },
      'SNAPSHOT_RETENTION_DAYS must be an integer from 1 to 36500, got "30d"',
    ],
    [
      { SNAPSHOT_RETENTION_DAYS: '-5' },
      'SNAPSHOT_RETENTION_DAYS must be an integer from 1 to 36500, got "-5"',
    ],
    [
      { WEBHOOK_RETRY_SCHEDULE: '5s,soon' },
      'WEBHOOK_RETRY_SCHEDULE must be 1 to 20 comma-separated durations such as 5s,5m,30m,2h (units ms, s, m, h; each at most 24h), got "5s,soon"',
    ],
    [
      { WEBHOOK_RETRY_SCHEDULE: '25h' },
      'WEBHOOK_RETRY_SCHEDULE must be 1 to 20 comma-separated durations such as 5s,5m,30m,2h (units ms, s, m, h; each at most 24h), got "25h"',
    ],
    [{ EVENTS_POLL_MS: '5' }, 'EVENTS_POLL_MS must be an integer from 10 to 60000, got "5"'],
  ])('rejects %j with a clear message', (env, message) => {
    expect(() => loadConfig(env)).toThrow(new ConfigError(message));
  });

  it('reads CORS_ORIGINS as origins, normalised as browsers send them', () => {
    expect(
      loadConfig({
        CORS_ORIGINS: 'https://App.Example.com, http://localhost:5173,,https://a.io:443',
      }).corsOrigins,
    ).toEqual(['https://app.example.com', 'http://localhost:5173', 'https://a.io']);
  });

  it('takes METRICS_TOKEN as a secret of 16 visible characters or more, never shown', () => {
    expect(String(loadConfig({ METRICS_TOKEN: 'scrape-token-0123456789' }).metricsToken)).toBe(
      '[redacted]',
    );
    expect(() => loadConfig({ METRICS_TOKEN: 'short-secret' })).toThrow(
      'METRICS_TOKEN must be at least 16 visible ASCII characters without spaces',
    );
  });

  it('turns tracing on with OTEL_EXPORTER_OTLP_ENDPOINT, masking credentials in its error', () => {
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).tracing).toEqual({
      endpoint: 'http://collector:4318',
      serviceName: 'pipeline-gateway',
    });
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'grpc://u:p4ss@collector' })).toThrow(
      'OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL (the collector\'s OTLP/HTTP base, e.g. http://localhost:4318), got "grpc://u:****@collector"',
    );
  });

  it('masks the password of a URI, whatever it holds', () => {
    expect(maskUri('mongodb://ops:s3cret@db:27017/crm?authSource=admin')).toBe(
      'mongodb://ops:****@db:27017/crm?authSource=admin',
    );
    expect(maskUri('mongodb+srv://ops:p@ss/w0rd@cluster.example.net/crm')).toBe(
      'mongodb+srv://ops:****@cluster.example.net/crm',
    );
    expect(maskUri('mongodb://db:27017/crm')).toBe('mongodb://db:27017/crm');
  });
});
