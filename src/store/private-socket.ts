import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The socket's file name; the driver takes a host ending in `.sock` for a Unix socket path. */
export const SOCKET_FILE_NAME = 'mongod.sock';

/**
 * Longest usable socket path: `sun_path` holds 108 bytes on Linux and 104 on macOS and the BSDs,
 * the terminating NUL included. A longer path is cut short by the kernel without an error.
 */
const MAX_SOCKET_PATH_BYTES = process.platform === 'linux' ? 107 : 103;

/** True when a socket path fits in `sun_path`. */
export function fitsSocketPath(path: string): boolean {
  return Buffer.byteLength(resolve(path)) <= MAX_SOCKET_PATH_BYTES;
}

export interface PrivateSocketPlace {
  /** Absolute path of the socket file. */
  path: string;
  /** The private directory made for it, to remove at stop; null when it is in the data directory. */
  tempDir: string | null;
}

/**
 * Where a server that only its own user may reach puts its socket: in the data directory, which
 * the journal keeps at 0700; without one (in memory), or when that path is too long for a socket,
 * in a fresh directory from `mkdtemp`, which is created 0700. Either way the directory, not the
 * socket file's own mode, is what keeps other local users out: connecting to a socket needs
 * search permission on every directory above it.
 */
export async function placePrivateSocket(dataDir: string | null): Promise<PrivateSocketPlace> {
  if (dataDir !== null) {
    const path = resolve(dataDir, SOCKET_FILE_NAME);
    if (fitsSocketPath(path)) return { path, tempDir: null };
  }
  const tempDir = await mkdtemp(join(tmpdir(), 'pipeline-store-'));
  return { path: join(tempDir, SOCKET_FILE_NAME), tempDir };
}
