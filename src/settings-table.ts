/**
 * Every environment variable the gateway and its tools read, with its default and a one-line
 * meaning: what `npm start -- --help`, `npm run import -- --help` and `npm run db -- --help` print,
 * and what docs/configuration.md's tables are checked against (test/docs/executed-docs.test.ts:
 * same names, same defaults, and the gateway's names are exactly those src/config.ts reads).
 */
export interface SettingRow {
  name: string;
  /** As docs/configuration.md's "default" column reads, without its backticks. */
  default: string;
  /** One line for a terminal; the docs say more. */
  summary: string;
}

/** The gateway's own variables (src/config.ts), in docs/configuration.md's order. */
export const GATEWAY_SETTINGS: readonly SettingRow[] = [
  { name: 'PORT', default: '4000', summary: 'HTTP port (0: any free port)' },
  { name: 'HOST', default: '127.0.0.1', summary: 'interface to listen on' },
  {
    name: 'MONGODB_URI',
    default: 'unset: the embedded server',
    summary: 'an external MongoDB (mongodb:// or mongodb+srv://, naming its database)',
  },
  {
    name: 'DATA_DIR',
    default: './data',
    summary: 'embedded database files, generated admin token and JWT key',
  },
  {
    name: 'ADMIN_TOKEN',
    default: 'generated, kept in DATA_DIR',
    summary: 'the bootstrap admin secret (16+ visible ASCII characters)',
  },
  {
    name: 'JWT_SECRET',
    default: 'generated, kept in DATA_DIR (in the database with MONGODB_URI)',
    summary: 'HS256 key of member tokens (32+ characters)',
  },
  { name: 'JWT_ISSUER', default: 'pipeline-gateway', summary: '`iss` of issued tokens' },
  { name: 'JWT_AUDIENCE', default: 'pipeline-gateway', summary: '`aud` of issued tokens' },
  {
    name: 'BODY_LIMIT',
    default: '1048576 (1 MiB)',
    summary: 'largest body of the import and /graphql in bytes (other routes: 256 KiB at most)',
  },
  {
    name: 'RATE_LIMIT',
    default: '600',
    summary: 'requests per window per caller (0: off)',
  },
  { name: 'RATE_LIMIT_WINDOW', default: '60', summary: 'rate-limit window in seconds' },
  {
    name: 'RATE_LIMIT_REDIS_URL',
    default: 'unset: in memory',
    summary: 'share rate-limit counters through Redis (redis:// or rediss://)',
  },
  {
    name: 'REQUEST_TIMEOUT_MS',
    default: '10000',
    summary: 'time budget of a request (0: off)',
  },
  {
    name: 'HEADERS_TIMEOUT_MS',
    default: '10000',
    summary: 'longest wait for a request’s headers',
  },
  {
    name: 'CACHE_MAX_AGE_MS',
    default: '5000',
    summary: 'how soon writes made straight into the database by another tool are seen',
  },
  {
    name: 'KEEP_ALIVE_TIMEOUT_MS',
    default: '5000',
    summary: 'idle kept-alive connections are closed then',
  },
  { name: 'MAX_CONNECTIONS', default: '1024', summary: 'open connections at most (0: no cap)' },
  {
    name: 'MAX_CONNECTIONS_PER_ADDRESS',
    default: '256',
    summary: 'open connections from one client address at most (0: no cap)',
  },
  {
    name: 'SHUTDOWN_GRACE_MS',
    default: '30000',
    summary: 'longest wait for in-flight requests on SIGTERM/SIGINT',
  },
  {
    name: 'INTROSPECTION',
    default: 'admins',
    summary: 'who may query __schema/__type: admins, all, off',
  },
  {
    name: 'LOG_LEVEL',
    default: 'info',
    summary: 'fatal, error, warn, info, debug, trace, silent',
  },
  {
    name: 'SEED_DEMO',
    default: 'true',
    summary: 'load the demo company into an empty embedded database',
  },
  {
    name: 'CRM_PROVIDER',
    default: 'hubspot',
    summary: 'the CRM a sync reads: hubspot or salesforce',
  },
  {
    name: 'HUBSPOT_TOKEN',
    default: 'unset: no sync',
    summary: 'HubSpot access token the sync reads with (a secret)',
  },
  {
    name: 'HUBSPOT_BASE_URL',
    default: 'https://api.hubapi.com',
    summary: 'where HubSpot’s API is',
  },
  {
    name: 'SALESFORCE_LOGIN_URL',
    default: 'https://login.salesforce.com',
    summary: 'where the Salesforce sync asks for its token (the org’s My Domain URL)',
  },
  {
    name: 'SALESFORCE_CLIENT_ID',
    default: 'unset: no Salesforce sync',
    summary: 'consumer key of the connected app (client-credentials flow)',
  },
  {
    name: 'SALESFORCE_CLIENT_SECRET',
    default: 'unset: no Salesforce sync',
    summary: 'its consumer secret (a secret)',
  },
  {
    name: 'SALESFORCE_API_VERSION',
    default: 'v62.0',
    summary: 'REST API version in /services/data/<version>/',
  },
  {
    name: 'SALESFORCE_API_LIMIT_PERCENT',
    default: '80',
    summary: 'a Salesforce sync stops before the org’s daily API usage passes this share',
  },
  {
    name: 'SYNC_INTERVAL_MINUTES',
    default: '0 (off)',
    summary: 'sync from the CRM this often inside the gateway',
  },
  {
    name: 'SYNC_LEASE_SECONDS',
    default: '60',
    summary: 'how long a running sync’s lease lasts unrenewed',
  },
  {
    name: 'SNAPSHOT_RETENTION_DAYS',
    default: '14',
    summary: 'snapshots older than this before the latest are removed (but one a period)',
  },
  {
    name: 'WEBHOOK_RETRY_SCHEDULE',
    default: '5s,5m,30m,2h,5h,10h',
    summary: 'delays before each retry of a failed webhook delivery; disabled after the last',
  },
  {
    name: 'WEBHOOK_ALLOW_PRIVATE_URLS',
    default: 'false',
    summary: 'let webhook urls resolve to loopback, private and link-local addresses',
  },
  {
    name: 'WEBHOOK_TIMEOUT_MS',
    default: '10000',
    summary: 'the longest a webhook delivery waits for its answer',
  },
  {
    name: 'EVENTS_POLL_MS',
    default: '250',
    summary: 'how often each instance reads the outbox for new events and due deliveries',
  },
  {
    name: 'EVENT_RETENTION_DAYS',
    default: '7',
    summary: 'delivered events and finished deliveries older than this are removed',
  },
  {
    name: 'CORS_ORIGINS',
    default: 'none',
    summary: 'origins whose pages may call the gateway from a browser, comma-separated',
  },
  {
    name: 'METRICS_TOKEN',
    default: 'unset: admins only',
    summary: 'a token that may read GET /metrics and nothing else (a secret)',
  },
  {
    name: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    default: 'unset: no tracing',
    summary: 'send OpenTelemetry traces to this OTLP/HTTP collector',
  },
  {
    name: 'OTEL_SERVICE_NAME',
    default: 'pipeline-gateway',
    summary: 'service.name of the traces',
  },
];

/** `npm run db`'s variables (src/store/standalone/standalone-options.ts); flags win over them. */
export const STORE_SETTINGS: readonly SettingRow[] = [
  { name: 'STORE_PORT', default: '27017', summary: 'TCP port (--port)' },
  { name: 'STORE_HOST', default: '127.0.0.1', summary: 'interface to listen on (--host)' },
  { name: 'DATA_DIR', default: './data', summary: 'the data directory' },
  {
    name: 'STORE_USER',
    default: 'pipeline-gateway',
    summary: 'the one user clients authenticate as (with STORE_PASSWORD)',
  },
  {
    name: 'STORE_PASSWORD',
    default: 'generated, kept in DATA_DIR',
    summary: 'that user’s password; never written anywhere',
  },
];

/** The gateway's variables `npm run import` and `npm run sync` read. */
export const IMPORT_SETTINGS: readonly SettingRow[] = GATEWAY_SETTINGS.filter((row) =>
  ['MONGODB_URI', 'DATA_DIR', 'SNAPSHOT_RETENTION_DAYS'].includes(row.name),
);

/** The rows as aligned lines for a terminal: name, default, meaning. */
export function formatSettings(rows: readonly SettingRow[]): string {
  const nameWidth = Math.max(...rows.map((row) => row.name.length));
  return rows
    .map((row) => `  ${row.name.padEnd(nameWidth)}  ${row.summary} (default: ${row.default})`)
    .join('\n');
}
