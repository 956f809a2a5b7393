import mongoose, { type Connection } from 'mongoose';
import { EmbeddedMongoServer } from '../store/server';
import { watchMonitor } from './monitor-watchdog';

export interface ConnectDatabaseOptions {
  /** A MongoDB URL (MONGODB_URI); when it is unset or empty the embedded server is started. */
  uri?: string;
  /** Data directory of the embedded server (DATA_DIR); required unless `inMemory`. */
  dataDir?: string;
  /** Run the embedded server in memory (tests): nothing is written, `dataDir` is ignored. */
  inMemory?: boolean;
  /** Database name; default: the URL's, else `pipeline-gateway` for the embedded server. */
  dbName?: string;
  /** Told when the driver is restarted because its server monitor hung (monitor-watchdog.ts). Default: a process warning. */
  onDriverRestart?: (reason: string) => void;
}

export interface Database {
  /** The default mongoose connection, which the models use. */
  connection: Connection;
  /**
   * The URL mongoose connected to. For the embedded server: `mongodb://<percent-encoded socket
   * path>/`, which the driver and mongoose open like any other URL.
   */
  uri: string;
  /** The embedded server when one was started, else null. */
  embedded: EmbeddedMongoServer | null;
  /** Disconnects mongoose and stops the embedded server (if any). */
  close(): Promise<void>;
}

const EMBEDDED_DB_NAME = 'pipeline-gateway';

/**
 * How long an operation waits for a server the driver does not currently know to be up: an
 * operation started while the database is away fails after it, and so does the one retry the
 * driver makes of an operation its pool cut off.
 */
const SERVER_SELECTION_TIMEOUT_MS = 1_000;

/**
 * A database of its own process (MONGODB_URI) can stop answering while the gateway runs: a
 * stopped or paused process, a network that drops packets. Its monitor asks every 500 ms and
 * calls it gone when a heartbeat is not answered within 2 s; the pool then cuts off every
 * operation waiting on it. So an operation in flight fails at most 2.5 s after the database
 * froze, plus the one retry's server selection: about 3 s. There is no per-operation socket
 * time-out: a query may legitimately run up to its maxTimeMS, and the monitor, on a connection of
 * its own, tells a busy database from a frozen one (docs/security.md, "Faults", has how long a
 * busy store took to answer it).
 */
const REMOTE_TIMINGS = {
  serverSelectionTimeoutMS: SERVER_SELECTION_TIMEOUT_MS,
  heartbeatFrequencyMS: 500,
  connectTimeoutMS: 2_000,
} as const;

/**
 * The embedded store in process cannot freeze apart from the gateway, and it goes away only with
 * the connections to it closed, which fails operations at once. It shares the gateway's event
 * loop, so a long synchronous step of the gateway delays its answers as much as the gateway's
 * own: a tight heartbeat time-out would take such a step for an outage. Its monitor keeps the
 * relaxed timings.
 */
const IN_PROCESS_TIMINGS = {
  serverSelectionTimeoutMS: SERVER_SELECTION_TIMEOUT_MS,
  heartbeatFrequencyMS: 2_000,
  connectTimeoutMS: 5_000,
} as const;

/**
 * Connects mongoose to `MONGODB_URI`, or starts the embedded MongoDB-compatible server in process
 * and connects to that. The embedded server listens on a Unix socket only this user can reach
 * (`mongod.sock` in the 0700 data directory, or in a private temp directory), never on TCP. It
 * asks for no credentials: whoever can reach that socket can read the data directory anyway.
 * Queries are strict (`strictQuery: 'throw'`: an unknown filter path is an error, not a silent
 * match-all) and filters are sanitised (`sanitizeFilter`: `$`-operators smuggled in as values are
 * neutralised).
 */
export async function connectDatabase(options: ConnectDatabaseOptions = {}): Promise<Database> {
  mongoose.set('strictQuery', 'throw');
  mongoose.set('sanitizeFilter', true);
  // A query a real MongoDB has not finished in 8 s is abandoned server-side, inside the gateway's
  // 10 s request budget, rather than left running for a client that got its 503.
  mongoose.set('maxTimeMS', 8_000);
  const external = options.uri;
  let embedded: EmbeddedMongoServer | null = null;
  let uri: string;
  let dbName = options.dbName;
  if (external) {
    uri = external;
  } else {
    if (!options.inMemory && options.dataDir === undefined)
      throw new Error('connectDatabase: the embedded server needs a dataDir, or inMemory');
    const dataDir = options.inMemory ? null : options.dataDir!;
    // In process, not in a worker thread: a worker did not win clearly in `npm run bench:store`
    // (docs/performance.md), and it adds a thread hop per message and a second lifecycle (start,
    // crash, stop) to own.
    embedded = await EmbeddedMongoServer.start({ privateSocket: true, dataDir });
    uri = embedded.uri;
    dbName ??= EMBEDDED_DB_NAME;
  }
  const timings = embedded ? IN_PROCESS_TIMINGS : REMOTE_TIMINGS;
  try {
    // While the database is away, operations fail within about 3 s (a 503, not a pile of waiting
    // requests inside REQUEST_TIMEOUT_MS), and the monitor keeps looking for it, so the gateway
    // recovers by itself when it returns. The heartbeat time-out also bounds how long the
    // watchdog waits before it calls one stuck.
    await mongoose.connect(uri, { ...(dbName ? { dbName } : {}), ...timings });
  } catch (err) {
    await embedded?.stop();
    throw err;
  }
  const watchdog = watchMonitor(mongoose.connection.getClient(), {
    ...timings,
    onRestart:
      options.onDriverRestart ??
      ((reason) =>
        process.emitWarning(`Reconnecting to the database: ${reason}`, 'DatabaseReconnect')),
  });
  return {
    connection: mongoose.connection,
    uri,
    embedded,
    async close() {
      watchdog.stop();
      await mongoose.disconnect();
      await embedded?.stop();
    },
  };
}
