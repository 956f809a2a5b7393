import { ObjectId, type Document } from 'bson';
import { MongoClient } from 'mongodb';
import { EmbeddedMongoServer } from '../../src/store/server';
import { timeSequential, timeSync, type Rate } from './bench-timer';

/** One lookup figure beside its in-process reference. */
export interface LookupRow {
  what: string;
  docs: number;
  store: Rate;
  reference: Rate;
  referenceName: string;
}

export const docFor = (i: number): Document => ({
  _id: new ObjectId(),
  email: `user${i}@example.com`,
  n: i,
  cat: i % 20,
  amount: (i * 7919) % 1000,
  name: `Member ${i}`,
});

/** Loads `count` documents and an index on `email`; returns the documents as inserted. */
async function load(client: MongoClient, count: number): Promise<Document[]> {
  const coll = client.db('bench').collection(`docs${count}`);
  const docs = Array.from({ length: count }, (_, i) => docFor(i));
  for (let i = 0; i < count; i += 1000) await coll.insertMany(docs.slice(i, i + 1000));
  await coll.createIndex({ email: 1 }, { unique: true });
  return docs;
}

/**
 * Finds by `_id` and by an indexed field at each size, through the driver against the in-memory
 * server, each beside a plain `Map` lookup of the same keys. The lookup rate must not fall with
 * the size: both paths are index lookups.
 */
export async function lookupBench(sizes: number[], ops: number): Promise<LookupRow[]> {
  const server = await EmbeddedMongoServer.start();
  const client = new MongoClient(server.uri);
  const rows: LookupRow[] = [];
  try {
    for (const size of sizes) {
      const docs = await load(client, size);
      const coll = client.db('bench').collection(`docs${size}`);
      // Random keys spread over the whole collection, the same sequence for store and reference.
      const picks = Array.from({ length: ops + 200 }, (_, i) => docs[(i * 2654435761) % size]);
      const byId = new Map(docs.map((d) => [(d._id as ObjectId).toHexString(), d]));
      const byEmail = new Map(docs.map((d) => [d.email as string, d]));

      rows.push({
        what: 'find by _id',
        docs: size,
        store: await timeSequential(ops, async (i) => {
          const found = await coll.findOne({ _id: picks[i]._id });
          if (!found) throw new Error('find by _id missed');
        }),
        reference: timeSync(1_000_000, (i) => byId.get((picks[i % picks.length]._id as ObjectId).toHexString())),
        referenceName: 'Map.get(id)',
      });
      rows.push({
        what: 'find by indexed field',
        docs: size,
        store: await timeSequential(ops, async (i) => {
          const found = await coll.findOne({ email: picks[i].email });
          if (!found) throw new Error('find by email missed');
        }),
        reference: timeSync(1_000_000, (i) => byEmail.get(picks[i % picks.length].email)),
        referenceName: 'Map.get(email)',
      });
      // Contrast: a field without an index is a scan, so this one is expected to fall with size.
      const scanOps = Math.max(20, Math.round(ops / (size / 1000)));
      rows.push({
        what: 'find by unindexed field (scan)',
        docs: size,
        store: await timeSequential(scanOps, async (i) => {
          const found = await coll.findOne({ name: picks[i].name });
          if (!found) throw new Error('find by name missed');
        }, 5),
        reference: timeSync(Math.max(20, Math.round(2000 / (size / 1000))), (i) => docs.find((d) => d.name === picks[i % picks.length].name)),
        referenceName: 'Array.find',
      });
    }
  } finally {
    await client.close();
    await server.stop();
  }
  return rows;
}

export interface GroupResult {
  docs: number;
  store: Rate;
  reference: Rate;
}

/** A `$group` over `count` documents through the driver, beside the same sum as an array reduce. */
export async function groupBench(count: number, runs: number): Promise<GroupResult> {
  const server = await EmbeddedMongoServer.start();
  const client = new MongoClient(server.uri);
  try {
    const coll = client.db('bench').collection('group');
    const docs = Array.from({ length: count }, (_, i) => docFor(i));
    for (let i = 0; i < count; i += 1000) await coll.insertMany(docs.slice(i, i + 1000));
    const pipeline = [{ $group: { _id: '$cat', total: { $sum: '$amount' }, count: { $sum: 1 } } }, { $sort: { _id: 1 } }];
    type Sums = Map<number, { total: number; count: number }>;
    const reduce = (): Sums =>
      docs.reduce<Sums>((acc, d) => {
        const entry = acc.get(d.cat as number) ?? { total: 0, count: 0 };
        entry.total += d.amount as number;
        entry.count += 1;
        return acc.set(d.cat as number, entry);
      }, new Map());
    // Same answer first, then speed.
    const expected = [...reduce()].sort((a, b) => a[0] - b[0]).map(([_id, v]) => ({ _id, ...v }));
    const got = await coll.aggregate(pipeline).toArray();
    if (JSON.stringify(got) !== JSON.stringify(expected)) {
      throw new Error(`$group answer differs from the reference: ${JSON.stringify(got).slice(0, 200)}`);
    }
    return {
      docs: count,
      store: await timeSequential(runs, () => coll.aggregate(pipeline).toArray(), 3),
      reference: timeSync(runs * 10, () => reduce()),
    };
  } finally {
    await client.close();
    await server.stop();
  }
}
