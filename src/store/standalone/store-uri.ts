import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AUTH_DB } from '../auth/scram-credential';
import { writePrivateFileSync } from '../storage/private-dir';

/** The file in the data directory holding the full connection URI, password included (mode 0600). */
export const STORE_URI_FILE_NAME = 'store-uri';

/** Where a TCP server listens. */
export interface TcpAddress {
  host: string;
  port: number;
}

const formatHost = ({ host, port }: TcpAddress): string =>
  `${host.includes(':') ? `[${host}]` : host}:${port}`;

/**
 * The database the URI names: the one the gateway uses on its embedded server, so a gateway given
 * this URI as MONGODB_URI uses it rather than the driver's default, `test`.
 */
export const STORE_URI_DATABASE = 'pipeline-gateway';

/**
 * `mongodb://<user>:<password>@<host>:<port>/pipeline-gateway?authSource=admin`; `password: null`
 * shows `****` (for logs). Without a user: `mongodb://<host>:<port>/pipeline-gateway`.
 */
export function storeUri(
  address: TcpAddress,
  credentials: { user: string; password: string | null } | null,
): string {
  if (!credentials) return `mongodb://${formatHost(address)}/${STORE_URI_DATABASE}`;
  const password =
    credentials.password === null ? '****' : encodeURIComponent(credentials.password);
  return `mongodb://${encodeURIComponent(credentials.user)}:${password}@${formatHost(address)}/${STORE_URI_DATABASE}?authSource=${AUTH_DB}`;
}

export function writeStoreUri(dataDir: string, uri: string): void {
  writePrivateFileSync(join(dataDir, STORE_URI_FILE_NAME), `${uri}\n`);
}

/**
 * Points the stored URI at the address listened on now (the port may differ between starts).
 * Returns false when there is no stored URI (removed after its password was copied elsewhere).
 */
export function updateStoreUriAddress(dataDir: string, address: TcpAddress): boolean {
  const path = join(dataDir, STORE_URI_FILE_NAME);
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
  const parts = /^(mongodb:\/\/[^@/]+@)([^/]+)(\/.*)?$/.exec(text);
  if (!parts) return true;
  const updated = `${parts[1]}${formatHost(address)}${parts[3] ?? '/'}`;
  if (updated !== text) writeStoreUri(dataDir, updated);
  return true;
}
