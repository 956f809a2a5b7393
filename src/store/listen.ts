// Internal to EmbeddedMongoServer: binding its listening socket.
import { chmodSync, lstatSync, unlinkSync } from 'node:fs';
import { connect, type Server } from 'node:net';
import { fitsSocketPath } from './private-socket';
import { PRIVATE_FILE_MODE } from './storage/private-dir';

function listen(server: Server, bind: (done: () => void) => void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    bind(() => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Listens on TCP; resolves with the port (the one the system picked for 0). */
export async function listenTcp(server: Server, host: string, port: number): Promise<number> {
  await listen(server, (done) => server.listen(port, host, done));
  const address = server.address();
  return typeof address === 'object' && address ? address.port : port;
}

/**
 * Listens on a Unix domain socket at `path`, mode 0600. A socket file already there is replaced
 * when nothing answers on it (left by a process that died without removing it); one that
 * answers belongs to a live server and is an error, and a file that is not a socket is never
 * removed. Inside a data directory the lock has already refused a live owner.
 */
export async function listenSocket(server: Server, path: string): Promise<void> {
  if (!fitsSocketPath(path)) {
    throw new Error(
      `socket path ${path} is longer than a Unix socket path may be; choose a shorter one`,
    );
  }
  try {
    await listen(server, (done) => server.listen(path, done));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    if (!lstatSync(path).isSocket())
      throw new Error(`${path} exists and is not a socket; refusing to replace it`, { cause: err });
    if (await answers(path))
      throw new Error(`${path} is in use by a running server`, { cause: err });
    unlinkSync(path);
    await listen(server, (done) => server.listen(path, done));
  }
  // bind() made it 0777 minus the umask; the directory already keeps others out, this says so twice.
  chmodSync(path, PRIVATE_FILE_MODE);
}

/** True if something accepts connections on the socket at `path`. */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connect(path);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
}
