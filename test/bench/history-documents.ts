/** Internal (benchmark): documents stored per collection, counted through the official driver. */
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
