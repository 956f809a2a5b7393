/**
 * Internal test helper: which database the test gateways use. `npm test` runs the functional
 * suites twice (jest.config.js): in the `embedded` project on an in-memory embedded server per
 * gateway, as always; in the `uri` project on one separate store process shared by the whole run,
 * as `MONGODB_URI` would point a deployed gateway at it, one fresh database per gateway. The uri
 * project's global set-up (test/helpers/uri-mode/global-setup.ts) starts that store and exports its
 * URI as GATEWAY_TEST_STORE_URI; its setup file (test/helpers/uri-mode/select.ts) sets
 * GATEWAY_TEST_DATABASE=uri in each of its test files. Both are needed: jest's workers are shared
 * by the projects, so the URI alone reaches the embedded project's test files too.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { CommandStartedEvent } from 'mongodb';
import type { Connection } from 'mongoose';
import type { EmbeddedMongoServer } from '../../src/store/server';
import { CONTENT_CHECK_COMMENT } from '../../src/data/content-fingerprints';
import { EVENTS_POLL_COMMENT } from '../../src/events/poll-comment';

/** The URI (with credentials, no database) of the shared store in uri mode; null in embedded mode. */
export function testStoreUri(): string | null {
  if (process.env.GATEWAY_TEST_DATABASE !== 'uri') return null;
  const uri = process.env.GATEWAY_TEST_STORE_URI;
  if (!uri)
    throw new Error(
      'GATEWAY_TEST_DATABASE=uri but GATEWAY_TEST_STORE_URI is not set: run the uri project through jest.config.js, whose global set-up starts the store',
    );
  return uri;
}

/** True when this test file runs in the `uri` project. */
export const uriMode = process.env.GATEWAY_TEST_DATABASE === 'uri';

/**
 * A database name of its own for each gateway or test database on the shared store: the test
 * file's name (to find it when debugging) and random bytes, within MongoDB's limits.
 */
export function uniqueDatabaseName(): string {
  const testPath = typeof expect === 'function' ? expect.getState().testPath : undefined;
  const file = testPath
    ? path
        .basename(testPath)
        .replace(/\.test\.ts$/, '')
        .replace(/[^A-Za-z0-9_-]/g, '_')
        .slice(0, 40)
    : 'test';
  return `${file}-${randomBytes(6).toString('hex')}`;
}

/**
 * Why a test that stops the gateway's database runs in embedded mode only: in uri mode that
 * database is the store process every test file shares. A database reached by URI going away is
 * tested by test/security/database-outage.test.ts, on a store of its own.
 */
export const STOPS_THE_DATABASE =
  'it stops the database, which in uri mode is the store every test file shares (test/security/database-outage.test.ts stops a URI database of its own)';

/**
 * `it` for a test that needs the embedded server itself (stopping it, or something only the
 * embedded server has); in uri mode it is skipped and its title says why.
 */
export function itEmbeddedOnly(
  name: string,
  reason: string,
  fn: jest.ProvidesCallback,
  timeout?: number,
): void {
  if (uriMode) it.skip(`${name} [embedded store only: ${reason}]`, fn, timeout);
  else it(name, fn, timeout);
}

/** `describe` for a group that needs the embedded server itself; skipped in uri mode, saying why. */
export function describeEmbeddedOnly(name: string, reason: string, fn: jest.EmptyFunction): void {
  if (uriMode) describe.skip(`${name} [embedded store only: ${reason}]`, fn);
  else describe(name, fn);
}

/** A command sent to the database: its name, the database it goes to, its body. */
export type CommandListener = (name: string, db: string, body: Record<string, unknown>) => void;

/** The URI with the driver's command monitoring on (for `watchCommands` on a connection by URI). */
export function monitored(uri: string): string {
  const url = new URL(uri);
  url.searchParams.set('monitorCommands', 'true');
  return url.toString();
}

const HEARTBEATS: ReadonlySet<string> = new Set(['hello', 'isMaster', 'ismaster']);

/**
 * Calls `listener` for each command sent to the database from this process, until the returned
 * function is called: the embedded server's `command` event when it runs here, else the driver's
 * command monitoring (the connection's URI must have it on: `monitored`). Handshakes and
 * heartbeats are not commands either way; neither are the content check's reads, which run in
 * the background once per CACHE_MAX_AGE_MS, whatever the test does (version-clock.ts), nor the
 * events poll's (src/events/events-runtime.ts), every EVENTS_POLL_MS.
 */
export function watchCommands(
  connection: Connection,
  server: EmbeddedMongoServer | null | undefined,
  listener: CommandListener,
): () => void {
  const requests: CommandListener = (name, db, body) => {
    // The embedded server sees the driver's heartbeats (`hello`) as commands; monitoring does not.
    if (
      body.comment !== CONTENT_CHECK_COMMENT &&
      body.comment !== EVENTS_POLL_COMMENT &&
      !HEARTBEATS.has(name)
    )
      listener(name, db, body);
  };
  if (server) {
    server.on('command', requests);
    return () => void server.off('command', requests);
  }
  const client = connection.getClient();
  const started = (event: CommandStartedEvent): void =>
    requests(event.commandName, event.databaseName, event.command);
  client.on('commandStarted', started);
  return () => void client.off('commandStarted', started);
}
