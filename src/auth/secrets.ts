import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Connection } from 'mongoose';
import type { GatewayConfig } from '../config';

/** The secrets the gateway runs with, and whether the admin token was generated on this start. */
export interface GatewaySecrets {
  jwtSecret: Uint8Array;
  adminToken: string;
  /** Set only on the start that generated the admin token, so the entry can print it once. */
  generatedAdminToken: string | null;
}

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
    if (existing.length < 16)
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
  const collection = connection.db!.collection<{ _id: string; value: string }>('gateway_secrets');
  const value = generate();
  try {
    await collection.insertOne({ _id: name, value });
    return { value, created: true };
  } catch (error) {
    if ((error as { code?: unknown }).code !== 11000) throw error;
  }
  const stored = await collection.findOne({ _id: name });
  if (!stored || typeof stored.value !== 'string' || stored.value.length < 16) {
    throw new Error(
      `gateway_secrets holds no usable ${name}; delete that document to generate a new one`,
    );
  }
  return { value: stored.value, created: false };
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
      : await store('admin-token');
  return {
    jwtSecret: new TextEncoder().encode(jwt.value),
    adminToken: admin.value,
    generatedAdminToken: admin.created ? admin.value : null,
  };
}
