import net from 'node:net';

/**
 * Fails, naming PORT and HOST, when the gateway could not listen there: checked before the
 * database is opened, so a port in use stops a first start before the data directory is created
 * or the demo loaded. The port is released again at once; another process taking it in between
 * still fails the real listen, later.
 */
export async function checkPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const probe = net.createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', (error: NodeJS.ErrnoException) => {
      const why =
        error.code === 'EADDRINUSE'
          ? 'is in use by another process (another gateway?): stop it, or set PORT to a free port'
          : error.code === 'EACCES'
            ? 'needs privileges this process does not have: set PORT to 1024 or above'
            : error.code === 'EADDRNOTAVAIL'
              ? 'cannot be listened on: HOST is not an address of this machine'
              : 'cannot be listened on';
      reject(new Error(`PORT ${port} on HOST ${host} ${why} (${error.code ?? error.message})`));
    });
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}
