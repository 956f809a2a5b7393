import 'reflect-metadata';
import { MongoClient, type Db } from 'mongodb';
import { loadConfig } from '../config';
import { EMBEDDED_DB_NAME } from '../db/connect-database';
import { EmbeddedMongoServer } from '../store/server';
import { parseCliArgs } from './cli-setup';

const USAGE = `Usage: npm run export-to -- MONGODB_URI

Copies the embedded database in DATA_DIR into the MongoDB database MONGODB_URI names (its path;
"test" when it names none, as the gateway would use): every collection with its options, its
indexes and its documents, types kept. Stop the gateway first (the data directory is locked while it
runs). The target's collections must be empty: nothing is copied when one of them holds documents.
Then start the gateway with MONGODB_URI set to the same URI.`;

/** Documents per insert: well under the 48 MB of one message for the gateway's documents. */
const BATCH = 1000;

/** Index options copied as they are (the key and the name are given apart). */
const INDEX_OPTIONS = [
  'unique',
  'sparse',
  'partialFilterExpression',
  'expireAfterSeconds',
  'collation',
  'hidden',
] as const;

async function collectionsOf(db: Db) {
  return (await db.listCollections({ type: 'collection' }, { nameOnly: false }).toArray()).filter(
    (c) => !c.name.startsWith('system.'),
  );
}

/** Copies every collection of `source` into `target`; answers the documents copied per collection. */
async function copyDatabase(
  source: Db,
  target: Db,
  onCollection: (name: string, documents: number) => void,
): Promise<void> {
  const collections = await collectionsOf(source);
  // Refused before anything is written: a copy on top of data would mix two databases.
  for (const { name } of collections) {
    const held = await target.collection(name).estimatedDocumentCount();
    if (held > 0)
      throw new Error(
        `the target's collection ${name} holds ${held} documents already: export into an empty database`,
      );
  }
  const existing = new Set((await collectionsOf(target)).map((c) => c.name));
  for (const { name, options } of collections) {
    if (!existing.has(name)) await target.createCollection(name, options ?? {});
    const indexes = (await source.collection(name).indexes()).filter((i) => i.name !== '_id_');
    if (indexes.length > 0) {
      await target.collection(name).createIndexes(
        indexes.map((index) => {
          const spec: Record<string, unknown> = { key: index.key, name: index.name };
          for (const option of INDEX_OPTIONS)
            if (index[option] !== undefined) spec[option] = index[option];
          return spec as { key: Record<string, 1 | -1>; name: string };
        }),
      );
    }
    // Values as stored (int32, int64, double and decimal stay what they are), in natural order.
    const cursor = source
      .collection(name)
      .find(
        {},
        { batchSize: BATCH, promoteValues: false, promoteLongs: false, promoteBuffers: false },
      );
    let batch: Record<string, unknown>[] = [];
    let copied = 0;
    for await (const doc of cursor) {
      batch.push(doc);
      if (batch.length === BATCH) {
        await target.collection(name).insertMany(batch, { ordered: false });
        copied += batch.length;
        batch = [];
      }
    }
    if (batch.length > 0) await target.collection(name).insertMany(batch, { ordered: false });
    onCollection(name, copied + batch.length);
  }
}

async function main(): Promise<number> {
  const args = parseCliArgs(USAGE, {}, true);
  if (typeof args === 'number') return args;
  if (args.positionals.length !== 1) {
    console.error(USAGE);
    return 2;
  }
  const uri = args.positionals[0];
  if (!/^mongodb(\+srv)?:\/\//.test(uri)) {
    console.error(`Not a MongoDB URI: it starts with mongodb:// or mongodb+srv://\n\n${USAGE}`);
    return 2;
  }
  const config = loadConfig({ ...process.env, MONGODB_URI: '' });
  const embedded = await EmbeddedMongoServer.start({
    privateSocket: true,
    dataDir: config.dataDir,
  });
  const source = new MongoClient(embedded.uri);
  const target = new MongoClient(uri, { serverSelectionTimeoutMS: 10_000 });
  try {
    const started = Date.now();
    const into = target.db();
    let total = 0;
    await copyDatabase(source.db(EMBEDDED_DB_NAME), into, (name, documents) => {
      total += documents;
      console.log(`  ${name.padEnd(24)} ${documents} documents`);
    });
    console.log(
      `Copied ${total} documents from ${config.dataDir} into database ${into.databaseName} in ${((Date.now() - started) / 1000).toFixed(1)} s. Start the gateway with MONGODB_URI set to that URI.`,
    );
    return 0;
  } finally {
    await source.close();
    await target.close();
    await embedded.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`Export failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
