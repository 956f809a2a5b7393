import type { FastifyInstance } from 'fastify';

export interface GracefulShutdownOptions {
  /** Closes the database once requests are drained. */
  closeDatabase: () => Promise<void>;
  /** Longest wait for in-flight requests (SHUTDOWN_GRACE_MS); then their connections are cut. */
  graceMs: number;
  /** Work that outlives its request and must end before the database closes (a running import). */
  settled?: () => Promise<void>;
  /** Last, once the database is closed: sends what is still buffered (the traces of the last requests). */
  flush?: () => Promise<void>;
}

/** Signals closer together than this count as one (see the handler). */
const SAME_PRESS_MS = 1_000;

/**
 * On SIGTERM/SIGINT: stop accepting connections, let in-flight requests finish (fastify's close
 * waits for them and answers new ones with 503) and the work they started settle, close the
 * database, exit 0. Past the grace period the remaining connections are cut, the database closed,
 * and the exit code is 1. A second signal while closing (a second Ctrl-C) exits at once with 1.
 */
export function installGracefulShutdown(
  app: FastifyInstance,
  options: GracefulShutdownOptions,
): void {
  let closingSince: number | null = null;
  const shutdown = (signal: NodeJS.Signals): void => {
    if (closingSince !== null) {
      // `npm start` forwards the terminal's Ctrl-C to its child, which the terminal signalled
      // too: a repeat within a second is that same press. A later one is the user insisting.
      if (Date.now() - closingSince < SAME_PRESS_MS) return;
      app.log.warn({ signal }, 'shutting down: second signal, exiting without waiting');
      process.exit(1);
    }
    closingSince = Date.now();
    app.log.info({ signal }, 'shutting down: draining in-flight requests');
    let timer: NodeJS.Timeout | undefined;
    const overdue = new Promise<'overdue'>((resolve) => {
      timer = setTimeout(() => resolve('overdue'), options.graceMs);
    });
    const drained = app
      .close()
      .then(() => options.settled?.())
      .then(() => 'drained' as const);
    Promise.race([drained, overdue])
      .then(async (outcome) => {
        clearTimeout(timer);
        if (outcome === 'overdue') {
          app.log.warn(
            { graceMs: options.graceMs },
            'shutting down: grace period over, cutting the remaining connections',
          );
          app.server.closeAllConnections();
        }
        await options.closeDatabase();
        await options.flush?.();
        process.exit(outcome === 'drained' ? 0 : 1);
      })
      .catch((error: unknown) => {
        app.log.error({ err: error }, 'error while shutting down');
        process.exit(1);
      });
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}
