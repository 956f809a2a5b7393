import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import {
  CREDENTIAL_FILE_NAME,
  readCredentialFile,
  writeCredentialFile,
} from '../auth/credential-file';
import { deriveScramCredential, type ScramCredential } from '../auth/scram-credential';
import type { StandaloneOptions } from './standalone-options';
import {
  STORE_URI_FILE_NAME,
  storeUri,
  updateStoreUriAddress,
  writeStoreUri,
  type TcpAddress,
} from './store-uri';

/** The user `npm run db` generates when neither STORE_USER nor a stored credential names one. */
export const GENERATED_USER = 'pipeline-gateway';

/** Who may connect to `npm run db`, and where that came from. */
export type StoreAccess =
  /** `--no-auth`: everyone. */
  | { kind: 'open' }
  /** STORE_USER/STORE_PASSWORD: nothing is written. */
  | { kind: 'environment'; credential: ScramCredential }
  /** The credential kept in the data directory by an earlier start. */
  | { kind: 'stored'; credential: ScramCredential }
  /** New on this start: kept in the data directory once the server runs. */
  | { kind: 'generated'; credential: ScramCredential; password: string };

/**
 * Decides the credential of `npm run db`: `--no-auth` asks for none; STORE_PASSWORD (and
 * STORE_USER) win over a stored credential; else the one in the data directory; else a new user
 * `pipeline-gateway` with a random password. Generated passwords are base64url, so SASLprep leaves
 * them as they are and they need no escaping in a URI.
 */
export function resolveStoreAccess(options: StandaloneOptions): StoreAccess {
  if (!options.auth) return { kind: 'open' };
  if (options.password !== undefined) {
    return {
      kind: 'environment',
      credential: deriveScramCredential(options.user ?? GENERATED_USER, options.password),
    };
  }
  const stored = readCredentialFile(options.dataDir);
  if (stored) return { kind: 'stored', credential: stored };
  const password = randomBytes(24).toString('base64url');
  return {
    kind: 'generated',
    credential: deriveScramCredential(GENERATED_USER, password),
    password,
  };
}

/**
 * Once the server listens: keeps a generated credential (`store-credentials.json`) and the full
 * connection URI (`store-uri`) in the data directory, both mode 0600, or points a stored URI at
 * the current address. Returns the lines to print; the password appears only on the start that
 * generated it, as the gateway prints its admin token.
 */
export function publishStoreAccess(
  dataDir: string,
  access: StoreAccess,
  address: TcpAddress,
): string[] {
  const uriFile = join(dataDir, STORE_URI_FILE_NAME);
  switch (access.kind) {
    case 'open':
      return [`listening WITHOUT AUTHENTICATION: ${storeUri(address, null)}`];
    case 'environment':
      return [
        `clients authenticate as ${access.credential.user} with STORE_PASSWORD: ${storeUri(address, { user: access.credential.user, password: null })}`,
      ];
    case 'stored': {
      const masked = storeUri(address, { user: access.credential.user, password: null });
      if (updateStoreUriAddress(dataDir, address))
        return [
          `clients authenticate as ${access.credential.user}; the full URI is in ${uriFile}: ${masked}`,
        ];
      return [
        `clients authenticate as ${access.credential.user}: ${masked}`,
        `(${uriFile} with the password was removed; delete ${join(dataDir, CREDENTIAL_FILE_NAME)} and restart to generate a new password)`,
      ];
    }
    case 'generated': {
      const uri = storeUri(address, { user: access.credential.user, password: access.password });
      writeCredentialFile(dataDir, access.credential);
      writeStoreUri(dataDir, uri);
      return [`Generated store credentials (the URI is kept in ${uriFile}, mode 0600): ${uri}`];
    }
  }
}
