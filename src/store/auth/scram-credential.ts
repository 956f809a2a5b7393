import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { saslprep } from '@mongodb-js/saslprep';

/** The one mechanism the store speaks (RFC 7677); drivers pick it by default. */
export const SCRAM_SHA_256 = 'SCRAM-SHA-256';

/** The database users are defined in: clients authenticate with `authSource=admin`. */
export const AUTH_DB = 'admin';

/** mongod's default iteration count for SCRAM-SHA-256 (`scramSHA256IterationCount`). */
export const DEFAULT_ITERATIONS = 15_000;

/** RFC 7677 asks for at least 4096; the driver refuses fewer. */
export const MIN_ITERATIONS = 4096;

/**
 * What the server keeps of a user's password (RFC 5802 §3): enough to check a client's proof and
 * to prove itself, not enough to log in. The password is never part of it.
 */
export interface ScramCredential {
  user: string;
  iterations: number;
  salt: Buffer;
  storedKey: Buffer;
  serverKey: Buffer;
}

export const hmacSha256 = (key: Buffer, text: Buffer | string): Buffer =>
  createHmac('sha256', key).update(text).digest();

export const sha256 = (data: Buffer): Buffer => createHash('sha256').update(data).digest();

/**
 * Derives the credential of `user` from `password`: SaltedPassword = Hi(SASLprep(password), salt, i),
 * ClientKey = HMAC(SaltedPassword, "Client Key"), StoredKey = H(ClientKey),
 * ServerKey = HMAC(SaltedPassword, "Server Key"). The driver applies the same SASLprep.
 */
export function deriveScramCredential(
  user: string,
  password: string,
  options: { iterations?: number; salt?: Buffer } = {},
): ScramCredential {
  const iterations = options.iterations ?? DEFAULT_ITERATIONS;
  if (!Number.isInteger(iterations) || iterations < MIN_ITERATIONS) {
    throw new Error(
      `SCRAM iteration count must be an integer of at least ${MIN_ITERATIONS}, got ${iterations}`,
    );
  }
  if (user === '') throw new Error('a store user name must not be empty');
  if (password === '') throw new Error('a store password must not be empty');
  // 28 bytes, as mongod salts SCRAM-SHA-256 credentials.
  const salt = options.salt ?? randomBytes(28);
  const salted = pbkdf2Sync(saslprep(password), salt, iterations, 32, 'sha256');
  return {
    user,
    iterations,
    salt,
    storedKey: sha256(hmacSha256(salted, 'Client Key')),
    serverKey: hmacSha256(salted, 'Server Key'),
  };
}
