/** Internal (benchmark): documents and bytes stored per collection, read through the official driver. */
import { MongoClient } from 'mongodb';

/**
 * Counts the documents of every collection of the gateway's database (`count` without a filter).
 * `uri`: the store's URI (embedded: its socket in the data directory); `dbName`: the gateway's
 * database on it.
 */
export async function countDocuments(uri: string, dbName: string): Promise<Record<string, number>> {
  const client = new MongoClient(uri, { directConnection: true });
  try {
    const db = client.db(dbName);
    const collections = await db.listCollections({}, { nameOnly: true }).toArray();
    const counts: Record<string, number> = {};
    for (const { name } of collections.sort((a, b) => a.name.localeCompare(b.name))) {
      counts[name] = await db.collection(name).estimatedDocumentCount();
    }
    return counts;
  } finally {
    await client.close();
  }
}

/**
 * The BSON bytes of every collection's documents (`collStats` size, indexes not included): what
 * a compacted data directory holds of each.
 */
export async function collectionBytes(uri: string, dbName: string): Promise<Record<string, number>> {
  const client = new MongoClient(uri, { directConnection: true });
  try {
    const db = client.db(dbName);
    const collections = await db.listCollections({}, { nameOnly: true }).toArray();
    const bytes: Record<string, number> = {};
    for (const { name } of collections.sort((a, b) => a.name.localeCompare(b.name))) {
      const stats = await db.command({ collStats: name });
      bytes[name] = Number(stats.size);
    }
    return bytes;
  } finally {
    await client.close();
  }
}
