/** Internal (benchmark): documents and bytes stored per collection, read through the official driver. */
import { type Db, MongoClient } from 'mongodb';

/** `measure` of every collection of the gateway's database `dbName` on the store at `uri`, by name. */
async function perCollection(
  uri: string,
  dbName: string,
  measure: (db: Db, name: string) => Promise<number>,
): Promise<Record<string, number>> {
  const client = new MongoClient(uri, { directConnection: true });
  try {
    const db = client.db(dbName);
    const collections = await db.listCollections({}, { nameOnly: true }).toArray();
    const figures: Record<string, number> = {};
    for (const { name } of collections.sort((a, b) => a.name.localeCompare(b.name))) {
      figures[name] = await measure(db, name);
    }
    return figures;
  } finally {
    await client.close();
  }
}

/**
 * Counts the documents of every collection of the gateway's database (`count` without a filter).
 * `uri`: the store's URI (embedded: its socket in the data directory); `dbName`: the gateway's
 * database on it.
 */
export function countDocuments(uri: string, dbName: string): Promise<Record<string, number>> {
  return perCollection(uri, dbName, (db, name) => db.collection(name).estimatedDocumentCount());
}

/**
 * The BSON bytes of every collection's documents (`collStats` size, indexes not included): what
 * a compacted data directory holds of each.
 */
export function collectionBytes(uri: string, dbName: string): Promise<Record<string, number>> {
  return perCollection(uri, dbName, async (db, name) =>
    Number((await db.command({ collStats: name })).size),
  );
}
