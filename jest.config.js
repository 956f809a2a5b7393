// Jest (`npm test`): two projects in one run.
//
// - `embedded`: every test, each gateway on an in-memory embedded store (the default database).
// - `uri`: the gateway's functional suites again, on ONE separate store process for the whole run,
//   started as `npm run db` runs it (test/helpers/uri-mode/global-setup.ts) and reached by URI as
//   `MONGODB_URI` would reach it; each gateway gets a fresh database on it (test/helpers/gateway.ts,
//   test/helpers/database-mode.ts). A test that needs the embedded server itself is skipped there
//   and says why (itEmbeddedOnly).
//
// `npx jest --selectProjects uri` (or `embedded`) runs one of them.
'use strict';

const base = {
  rootDir: __dirname,
  testEnvironment: 'node',
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
  setupFiles: ['reflect-metadata'],
  testTimeout: 60000,
};

// The uri project runs the suites that drive the gateway (over HTTP, or its services) on a database
// they get from test/helpers/gateway.ts, test/import/db.ts or test/pipelines/support/database.ts.
// Left out, by folder:
// - test/store: the store's own suites (wire, storage, durability, its CLI); its conformance suite
//   runs against a MongoDB by URI by hand (docs/embedded-store.md);
// - test/docs: the documents (executed-docs runs the real entry on the embedded demo company);
// - test/explorer, test/openapi: GraphiQL and the OpenAPI document, which do not read the database;
// - test/e2e (not part of npm test), test/bench (benchmarks, not tests);
// - test/domain, test/loaders, test/validation, test/cache, test/metrics/evaluate: pure functions;
// - test/metrics/metrics-read-cost, test/performance: count the commands a read sends with the
//   embedded server in process (its version counters read from memory, no round trip);
// - test/seed: the demo company loads only into an empty embedded database (never with MONGODB_URI);
// - test/graphql: its suites count the commands the embedded server receives, or have no database
//   (the GraphQL API runs in uri mode through the members, imports, security and server suites);
// - test/db: connectDatabase's own test, which starts both kinds of database itself;
// - test/multi-instance: starts its own store process and gateway processes (MONGODB_URI) anyway.
const URI_FOLDERS = [
  'auth',
  'data',
  'events',
  'forecasts',
  'import',
  'members',
  'pipelines',
  'rest',
  'security',
  'server',
  'settings',
  'sync',
  'targets',
  'teams',
];

// Left out of those folders, by file:
const URI_EXCLUDED = [
  // No database at all (pure functions, parsing, the configuration): the same in both modes.
  'test/auth/bearer-token',
  'test/auth/secrets',
  'test/members/member-access',
  'test/members/member-cursor',
  'test/import/normalise',
  'test/import/validate-documents',
  'test/import/read-hubspot-files',
  'test/import/backfill-state',
  'test/import/deal-currency',
  'test/import/deal-copies',
  'test/import/deal-outcome',
  'test/import/import-shapes',
  'test/rest/platform/internal-error-log',
  'test/security/query-cost',
  'test/server/classify-error',
  'test/server/config',
  'test/server/help',
  'test/server/del-method-rewriter',
  'test/data/answer-cache',
  // Two instances in one process, one of them with the embedded server in process by design.
  'test/data/two-instances-one-process',
  // The embedded store's own access rules (socket, directory, credentials); and the database
  // outage test, which already runs its gateway on a URI database of its own (and stops it).
  'test/security/store-access',
  'test/security/store-access-standalone',
  'test/security/database-outage',
  // Spawn the real entry or a CLI on a data directory of their own (embedded default), or their
  // own store process (the admin-token CLI with MONGODB_URI).
  'test/server/entry',
  'test/server/signals',
  'test/security/sigterm-under-load',
  'test/import/cli-import',
  'test/auth/cli-admin-token',
  'test/sync/cli-sync',
  'test/import/cli-import-crash',
  // Runs the import CLI against a store process of its own, by URI, in both projects' terms.
  'test/import/cli-import-large',
];

module.exports = {
  maxWorkers: 2,
  testTimeout: 60000,
  projects: [
    {
      ...base,
      displayName: 'embedded',
      roots: ['<rootDir>/test', '<rootDir>/src'],
      globalSetup: '<rootDir>/test/helpers/global-setup.ts',
    },
    {
      ...base,
      displayName: 'uri',
      roots: URI_FOLDERS.map((folder) => `<rootDir>/test/${folder}`),
      testPathIgnorePatterns: [
        '/node_modules/',
        ...URI_EXCLUDED.map((file) => `<rootDir>/${file}\\.test\\.ts$`),
      ],
      setupFiles: [...base.setupFiles, '<rootDir>/test/helpers/uri-mode/select.ts'],
      globalSetup: '<rootDir>/test/helpers/uri-mode/global-setup.ts',
      globalTeardown: '<rootDir>/test/helpers/uri-mode/global-teardown.ts',
    },
  ],
};
