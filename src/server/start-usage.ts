import { formatSettings, GATEWAY_SETTINGS } from '../settings-table';

/** What `npm start -- --help` prints. */
export const START_USAGE = `Usage: npm start [-- --help]

Starts Pipeline Gateway: REST and GraphQL (/graphql, explorer at /graphiql) over MongoDB or the
embedded database in DATA_DIR, loading the demo company into an empty embedded database. Settings
are environment variables (docs/configuration.md says more about each):

${formatSettings(GATEWAY_SETTINGS)}`;
