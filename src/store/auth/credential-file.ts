import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writePrivateFileSync } from '../storage/private-dir';
import { MIN_ITERATIONS, SCRAM_SHA_256, type ScramCredential } from './scram-credential';

/** The file in the data directory that holds the store's credential (never the password). */
export const CREDENTIAL_FILE_NAME = 'store-credentials.json';

interface StoredCredential {
  mechanism: typeof SCRAM_SHA_256;
  user: string;
  iterations: number;
  salt: string;
  storedKey: string;
  serverKey: string;
}

/** The credential kept in `dataDir`, or null when there is none. */
export function readCredentialFile(dataDir: string): ScramCredential | null {
  const path = join(dataDir, CREDENTIAL_FILE_NAME);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const unusable = (why: string): Error =>
    new Error(
      `${path} holds no usable credential (${why}); delete it to generate new credentials (clients then need the new URI)`,
    );
  let stored: Partial<StoredCredential>;
  try {
    stored = JSON.parse(text) as Partial<StoredCredential>;
  } catch {
    throw unusable('not JSON');
  }
  if (stored.mechanism !== SCRAM_SHA_256)
    throw unusable(`mechanism ${JSON.stringify(stored.mechanism)}, expected ${SCRAM_SHA_256}`);
  if (typeof stored.user !== 'string' || stored.user === '') throw unusable('no user');
  if (!Number.isInteger(stored.iterations) || (stored.iterations as number) < MIN_ITERATIONS)
    throw unusable('bad iteration count');
  const key = (field: 'salt' | 'storedKey' | 'serverKey', length?: number): Buffer => {
    const value = stored[field];
    const bytes = typeof value === 'string' ? Buffer.from(value, 'base64') : Buffer.alloc(0);
    if (bytes.length === 0 || (length !== undefined && bytes.length !== length))
      throw unusable(`bad ${field}`);
    return bytes;
  };
  return {
    user: stored.user,
    iterations: stored.iterations as number,
    salt: key('salt'),
    storedKey: key('storedKey', 32),
    serverKey: key('serverKey', 32),
  };
}

/** Keeps `credential` in `dataDir` (mode 0600); refuses to replace an existing one. */
export function writeCredentialFile(dataDir: string, credential: ScramCredential): void {
  const stored: StoredCredential = {
    mechanism: SCRAM_SHA_256,
    user: credential.user,
    iterations: credential.iterations,
    salt: credential.salt.toString('base64'),
    storedKey: credential.storedKey.toString('base64'),
    serverKey: credential.serverKey.toString('base64'),
  };
  writePrivateFileSync(
    join(dataDir, CREDENTIAL_FILE_NAME),
    `${JSON.stringify(stored, null, 2)}\n`,
    { exclusive: true },
  );
}
