import type { FastifyInstance } from 'fastify';

/**
 * On SIGTERM/SIGINT: stop accepting connections, let in-flight requests finish (fastify's close
 * waits for them and answers new ones with 503), close the database, exit 0. A second signal
 * while closing exits at once.
 */
export function installGracefulShutdown(app: FastifyInstance, closeDatabase: () => Promise<void>): void {
  let closing = false;
  const shutdown = (signal: NodeJS.Signals): void => {
    if (closing) process.exit(1);
    closing = true;
    app.log.info({ signal }, 'shutting down');
    app
      .close()
      .then(closeDatabase)
      .then(
        () => process.exit(0),
        (error: unknown) => {
          app.log.error({ err: error }, 'error while shutting down');
          process.exit(1);
        },
      );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}
