import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Connection } from 'mongoose';
import { loadConfig, type GatewayConfig } from '../../src/config';
import { TEST_CACHE_MAX_AGE_MS } from './cache-window';
import type { RouteDefinition } from '../../src/rest/route-definition';
import { MemberModel } from '../../src/models/member.model';
import { LISTEN_BACKLOG } from '../../src/server/http-edge';
import { buildApp, type BuildAppOptions } from '../../src/server/build-app';
import { recordAndSign } from '../../src/services/token.service';
import { connectDatabase } from '../../src/db/connect-database';
import { ensureIndexes } from '../../src/db/ensure-indexes';
import type { EmbeddedMongoServer } from '../../src/store/server';
import {
  monitored,
  testStoreUri,
  uniqueDatabaseName,
  watchCommands,
  type CommandListener,
} from './database-mode';
import { withDatabase } from './store-process';

export type { CommandListener };

export interface StartGatewayOptions {
  /** Environment variables as the gateway would read them (LOG_LEVEL defaults to silent). */
  env?: Record<string, string>;
  /** Extra REST routes (fault injection in tests). */
  extraRoutes?: readonly RouteDefinition[];
  /** Receives the gateway's log lines (set LOG_LEVEL in env to see more than nothing). */
  logStream?: { write(line: string): void };
  /** HubSpot client settings beyond HUBSPOT_BASE_URL and HUBSPOT_TOKEN (shorter backoff for tests). */
  hubspotClient?: BuildAppOptions['hubspotClient'];
  /** Salesforce client settings beyond the SALESFORCE_* variables. */
  salesforceClient?: BuildAppOptions['salesforceClient'];
}

export interface RequestOptions {
  /**
   * Bearer token. Omitted: the admin token. `null`: no Authorization header at all.
   * Any string is sent as is (`Bearer <token>`).
   */
  token?: string | null;
  /** An object/array is sent as JSON; a string or Buffer is sent as is (set content-type yourself). */
  body?: unknown;
  /** Query parameters; arrays become repeated keys. */
  query?: Record<string, string | number | boolean | Array<string | number>>;
  headers?: Record<string, string>;
}

export interface GatewayResponse<T = any> {
  status: number;
  headers: Record<string, string>;
  /** Parsed JSON when the answer is JSON, else the text. */
  body: T;
}

export interface TestGateway {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** The bootstrap admin secret the gateway runs with. */
  adminToken: string;
  /** The HS256 key the gateway signs and verifies tokens with (generated unless JWT_SECRET is set). */
  jwtSecret: Uint8Array;
  /** A token for an existing member, recorded and signed as `POST /auth/tokens` issues one. */
  tokenFor(memberId: string, expiresInSeconds?: number): Promise<string>;
  request<T = any>(
    method: string,
    path: string,
    options?: RequestOptions,
  ): Promise<GatewayResponse<T>>;
  /** POST /graphql; token as in `request` (omitted: admin). */
  graphql<T = any>(
    query: string,
    variables?: Record<string, unknown>,
    token?: string | null,
  ): Promise<{ status: number; body: T }>;
  /**
   * The embedded database server (stop it to take the database away); null in uri mode, where the
   * database is the store process every test file shares (test/helpers/database-mode.ts).
   */
  server: EmbeddedMongoServer | null;
  /**
   * Calls `listener` for each command this gateway (and the test, through the same mongoose
   * connection) sends to the database, until the returned function is called. Embedded: the
   * server's `command` event; uri mode: the driver's command monitoring. Either way it is every
   * command that reaches the database from this process, handshakes and heartbeats aside.
   */
  onCommand(listener: CommandListener): () => void;
  /** The database name the gateway uses: `pipeline-gateway` embedded, a fresh one in uri mode. */
  dbName: string;
  connection: Connection;
  app: FastifyInstance;
  config: GatewayConfig;
  /** Closes the app, the connection and the database server. Call it in afterAll. */
  stop(): Promise<void>;
}

function queryString(query: RequestOptions['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    for (const item of Array.isArray(value) ? value : [value]) params.append(key, String(item));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/**
 * Starts the whole gateway over real HTTP on a free port, on a fresh database: an in-memory
 * embedded server, or in uri mode (test/helpers/database-mode.ts) a new database on the shared
 * store process, connected through its URI as `MONGODB_URI` would be. mongoose models use the
 * default connection, so only one gateway runs per test file at a time.
 */
export async function startGateway(options: StartGatewayOptions = {}): Promise<TestGateway> {
  const storeUri = testStoreUri();
  const dbName = storeUri === null ? 'pipeline-gateway' : uniqueDatabaseName();
  // In uri mode the configuration says MONGODB_URI, as a gateway's does when it runs on one.
  const databaseEnv: Record<string, string> =
    storeUri === null ? {} : { MONGODB_URI: withDatabase(storeUri, dbName) };
  const config: GatewayConfig = {
    ...loadConfig({
      LOG_LEVEL: 'silent',
      CACHE_MAX_AGE_MS: String(TEST_CACHE_MAX_AGE_MS),
      ...databaseEnv,
      ...options.env,
    }),
    port: 0,
    host: '127.0.0.1',
  };
  const adminToken = config.adminToken ?? randomBytes(24).toString('base64url');
  const jwtSecret = new TextEncoder().encode(
    config.jwtSecret ?? randomBytes(32).toString('base64url'),
  );

  // The production path (mongoose settings included). Embedded: an in-memory server; `uri: ''`
  // keeps a MONGODB_URI meant for the store's conformance suite from being picked up here. Uri
  // mode: the shared store, a database of this gateway's own, and the driver's command monitoring
  // on (it only emits events) for `onCommand`.
  const database =
    storeUri === null
      ? await connectDatabase({ inMemory: true, uri: '' })
      : await connectDatabase({ uri: monitored(withDatabase(storeUri, dbName)), dbName });
  const server = database.embedded;
  if (storeUri === null && !server)
    throw new Error('startGateway: connectDatabase did not start the embedded server');
  const connection = database.connection;
  const onCommand = (listener: CommandListener): (() => void) =>
    watchCommands(connection, server, listener);
  const app = await buildApp({
    connection,
    config,
    secrets: { jwtSecret, adminToken, generatedAdminToken: null },
    extraRoutes: options.extraRoutes,
    logStream: options.logStream,
    hubspotClient: options.hubspotClient,
    salesforceClient: options.salesforceClient,
  });
  // Unique indexes must exist before the first write a test makes, as at start-up.
  await ensureIndexes();
  await app.listen({ port: 0, host: '127.0.0.1', backlog: LISTEN_BACKLOG });
  const port = (app.server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;

  const authorization = (token: string | null | undefined): Record<string, string> => {
    const value = token === undefined ? adminToken : token;
    return value === null ? {} : { authorization: `Bearer ${value}` };
  };

  const request = async <T>(
    method: string,
    path: string,
    opts: RequestOptions = {},
  ): Promise<GatewayResponse<T>> => {
    const headers: Record<string, string> = { ...authorization(opts.token) };
    let body: string | Buffer | undefined;
    if (typeof opts.body === 'string' || Buffer.isBuffer(opts.body)) {
      body = opts.body;
    } else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] = 'application/json';
    }
    // Explicit length: Node sends GET/DELETE bodies neither chunked nor sized otherwise.
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    Object.assign(headers, opts.headers);
    // node:http rather than fetch: the contract allows a JSON body on GET, which fetch refuses.
    const target = new URL(`${url}${path}${queryString(opts.query)}`);
    return new Promise<GatewayResponse<T>>((resolve, reject) => {
      const req = http.request(target, { method, headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const isJson = (res.headers['content-type'] ?? '').includes('json');
          const flat: Record<string, string> = {};
          for (const [key, value] of Object.entries(res.headers)) {
            if (value !== undefined) flat[key] = Array.isArray(value) ? value.join(', ') : value;
          }
          try {
            resolve({
              status: res.statusCode ?? 0,
              headers: flat,
              body: (isJson && text !== '' ? JSON.parse(text) : text) as T,
            });
          } catch (error) {
            reject(error);
          }
        });
      });
      req.on('error', reject);
      req.end(body);
    });
  };

  let stopped = false;
  return {
    url,
    port,
    adminToken,
    jwtSecret,
    server,
    onCommand,
    dbName,
    connection,
    app,
    config,
    request,
    async graphql<T>(query: string, variables?: Record<string, unknown>, token?: string | null) {
      const { status, body } = await request<T>('POST', '/graphql', {
        body: { query, variables },
        token,
      });
      return { status, body };
    },
    async tokenFor(memberId: string, expiresInSeconds = 3600) {
      // Set-up, not the API under test: recorded and signed as issuing does, without a request
      // (which the rate limit would count against the admin token).
      const member = await MemberModel.findById(memberId, { role: 1 }).lean();
      if (!member) throw new Error(`tokenFor: no member with id ${memberId}`);
      return (await recordAndSign(app.tokenSigner, member, 'admin-token', expiresInSeconds)).token;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await app.close();
      // Uri mode: the store outlives this gateway; its database goes, so the store stays small.
      if (storeUri !== null) await connection.dropDatabase().catch(() => undefined);
      await database.close();
    },
  };
}
