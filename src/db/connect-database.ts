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

/** The database the embedded server's data lives in. */
export const EMBEDDED_DB_NAME = 'pipeline-gateway';

const DRIVER_TIMINGS = {
  serverSelectionTimeoutMS: 3_000,
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
    // In process, not in a worker thread: measured with `npm run bench:store` (placement section,
    // test/bench/results/store.json; mixed mongoose load, 32 in flight, 2 shared CPUs), a worker
    // did not win clearly: 268 vs 351 requests/s in process with no gateway work per request,
    // 352 vs 315 with 200 µs of it, the rounds overlapping either way. A worker adds a thread hop
    // per message and a second lifecycle (start, crash, stop) to own, and the version counters
    // every request reads (src/data/version-clock.ts) would cost a round trip instead of a lookup.
    embedded = await EmbeddedMongoServer.start({ privateSocket: true, dataDir });
    uri = embedded.uri;
    dbName ??= EMBEDDED_DB_NAME;
  }
  try {
    // While the database is away, operations fail after 3 s (a 503, not a pile of waiting
    // requests inside REQUEST_TIMEOUT_MS), and the monitor looks for it again every 2 s, so the
    // gateway recovers by itself when it returns. A connection not made within 5 s is a failed
    // heartbeat, which also bounds how long the watchdog waits before it calls one stuck.
    await mongoose.connect(uri, { ...(dbName ? { dbName } : {}), ...DRIVER_TIMINGS });
  } catch (err) {
    await embedded?.stop();
    throw err;
  }
  const watchdog = watchMonitor(mongoose.connection.getClient(), {
    ...DRIVER_TIMINGS,
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
