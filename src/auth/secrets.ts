import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Connection } from 'mongoose';
import type { GatewayConfig } from '../config';
import { bumpVersions } from '../data/versions-document';
import { DirLock } from '../store/storage/dir-lock';

/** The secrets the gateway runs with, and whether the admin token was generated on this start. */
export interface GatewaySecrets {
  jwtSecret: Uint8Array;
  adminToken: string;
  /** Set only on the start that generated the admin token, so the entry can print it once. */
  generatedAdminToken: string | null;
  /**
   * True when the admin token lives in the database (`MONGODB_URI`, no `ADMIN_TOKEN`), where
   * `npm run admin-token -- --rotate` may replace it while instances run: the authenticator then
   * reads it again whenever the `tokens` version moves instead of keeping `adminToken`.
   */
  sharedAdminToken?: boolean;
}

/** The collection of generated secrets on a shared database, one document per secret. */
export const SECRETS_COLLECTION = 'gateway_secrets';

/** The name of the admin token: its file in DATA_DIR, its document in SECRETS_COLLECTION. */
export const ADMIN_TOKEN_NAME = 'admin-token';

/** Shorter values are refused wherever a stored secret is read: they were not generated here. */
const MIN_STORED_LENGTH = 16;

type Stored = { value: string; created: boolean };

/** Keeps a generated secret in DATA_DIR (mode 0600); the first writer wins, later starts read it. */
async function fromDataDir(dataDir: string, name: string, generate: () => string): Promise<Stored> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, name);
  const value = generate();
  try {
    await writeFile(file, `${value}\n`, { flag: 'wx', mode: 0o600 });
    return { value, created: true };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const existing = (await readFile(file, 'utf8')).trim();
    if (existing.length < MIN_STORED_LENGTH)
      throw new Error(`${file} holds no usable secret; delete it to generate a new one`, {
        cause: error,
      });
    return { value: existing, created: false };
  }
}

/**
 * Keeps a generated secret in the `gateway_secrets` collection, so several instances sharing one
 * MongoDB agree on it: the unique `_id` makes the first insert win, and the others read it back.
 */
async function fromDatabase(
  connection: Connection,
  name: string,
  generate: () => string,
): Promise<Stored> {
  const collection = secretsCollection(connection);
  const value = generate();
  try {
    await collection.insertOne({ _id: name, value });
    return { value, created: true };
  } catch (error) {
    if ((error as { code?: unknown }).code !== 11000) throw error;
  }
  const stored = await collection.findOne({ _id: name });
  if (!stored || typeof stored.value !== 'string' || stored.value.length < MIN_STORED_LENGTH) {
    throw new Error(
      `${SECRETS_COLLECTION} holds no usable ${name}; delete that document to generate a new one`,
    );
  }
  return { value: stored.value, created: false };
}

function secretsCollection(connection: Connection) {
  return connection.db!.collection<{ _id: string; value: string }>(SECRETS_COLLECTION);
}

const newSecret = (): string => randomBytes(32).toString('base64url');

/**
 * Resolves JWT_SECRET and ADMIN_TOKEN: the environment wins; otherwise a generated value is kept
 * in DATA_DIR on the embedded database, or in the database itself when MONGODB_URI is set.
 */
export async function loadSecrets(
  config: GatewayConfig,
  connection: Connection,
): Promise<GatewaySecrets> {
  const store = (name: string): Promise<Stored> =>
    config.mongodbUri !== undefined
      ? fromDatabase(connection, name, newSecret)
      : fromDataDir(config.dataDir, name, newSecret);
  const jwt =
    config.jwtSecret !== undefined
      ? { value: config.jwtSecret, created: false }
      : await store('jwt-secret');
  const admin =
    config.adminToken !== undefined
      ? { value: config.adminToken, created: false }
      : await store(ADMIN_TOKEN_NAME);
  return {
    jwtSecret: new TextEncoder().encode(jwt.value),
    adminToken: admin.value,
    generatedAdminToken: admin.created ? admin.value : null,
    sharedAdminToken: config.mongodbUri !== undefined && config.adminToken === undefined,
  };
}

/**
 * The admin token as stored in the database now, or null when there is none usable: what every
 * instance on a shared database checks the bootstrap secret against (src/auth/authenticator.ts).
 */
export async function readStoredAdminToken(connection: Connection): Promise<string | null> {
  const stored = await secretsCollection(connection).findOne({ _id: ADMIN_TOKEN_NAME });
  return stored && typeof stored.value === 'string' && stored.value.length >= MIN_STORED_LENGTH
    ? stored.value
    : null;
}

/**
 * Replaces the admin token stored in the database with a new random one and moves the `tokens`
 * version, so every instance's next request is checked against the new token: the old one
 * answers 401 from then on. Answers the new token.
 */
export async function rotateStoredAdminToken(connection: Connection): Promise<string> {
  const value = newSecret();
  await secretsCollection(connection).replaceOne(
    { _id: ADMIN_TOKEN_NAME },
    { value },
    { upsert: true },
  );
  await bumpVersions(connection, ['tokens']);
  return value;
}

/** The admin token kept in `dataDir`, or null when there is none yet. */
export async function readDataDirAdminToken(dataDir: string): Promise<string | null> {
  let text: string;
  try {
    text = await readFile(path.join(dataDir, ADMIN_TOKEN_NAME), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const value = text.trim();
  return value.length >= MIN_STORED_LENGTH ? value : null;
}

/**
 * Replaces the admin token kept in `dataDir` (mode 0600, written whole then renamed over the old
 * one). The embedded database's gateway reads the file when it starts, and holds the directory's
 * lock while it runs: the lock is taken here too, so this refuses (DirectoryInUseError) while a
 * gateway runs on the directory rather than change a token that gateway would go on accepting.
 */
export async function rotateDataDirAdminToken(dataDir: string): Promise<string> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const lock = DirLock.acquire(dataDir);
  try {
    const value = newSecret();
    const file = path.join(dataDir, ADMIN_TOKEN_NAME);
    const next = `${file}.new`;
    await rm(next, { force: true });
    await writeFile(next, `${value}\n`, { flag: 'wx', mode: 0o600 });
    await rename(next, file);
    return value;
  } finally {
    lock.release();
  }
}
