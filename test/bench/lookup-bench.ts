import { ObjectId, type Document } from 'bson';
import { MongoClient } from 'mongodb';
import { EmbeddedMongoServer } from '../../src/store/server';
import { median, timeSequential, timeSync, type Rate } from './bench-timer';

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

interface Prepared {
  size: number;
  coll: ReturnType<ReturnType<MongoClient['db']>['collection']>;
  docs: Document[];
  picks: Document[];
  byId: Map<string, Document>;
  byEmail: Map<string, Document>;
}

/** One kind of lookup: the store operation and its in-process reference. */
interface LookupKind {
  what: string;
  referenceName: string;
  ops(p: Prepared, ops: number): number;
  store(p: Prepared, i: number): Promise<unknown>;
  reference(p: Prepared, i: number): unknown;
}

const mustFind = (found: unknown, what: string): void => {
  if (!found) throw new Error(`${what} missed`);
};

const KINDS: LookupKind[] = [
  {
    what: 'find by _id',
    referenceName: 'Map.get(id)',
    ops: (_p, ops) => ops,
    store: async (p, i) => mustFind(await p.coll.findOne({ _id: p.picks[i]._id }), 'find by _id'),
    reference: (p, i) => p.byId.get((p.picks[i % p.picks.length]._id as ObjectId).toHexString()),
  },
  {
    what: 'find by indexed field',
    referenceName: 'Map.get(email)',
    ops: (_p, ops) => ops,
    store: async (p, i) =>
      mustFind(await p.coll.findOne({ email: p.picks[i].email }), 'find by email'),
    reference: (p, i) => p.byEmail.get(p.picks[i % p.picks.length].email),
  },
  {
    // Contrast: a field without an index is a scan, so this one is expected to fall with size.
    what: 'find by unindexed field (scan)',
    referenceName: 'Array.find',
    ops: (p, ops) => Math.max(10, Math.round(ops / 4 / (p.size / 1000))),
    store: async (p, i) =>
      mustFind(await p.coll.findOne({ name: p.picks[i].name }), 'find by name'),
    reference: (p, i) => p.docs.find((d) => d.name === p.picks[i % p.picks.length].name),
  },
];

/**
 * Finds by `_id` and by an indexed field at each size, through the driver against the in-memory
 * server, each beside a plain `Map` lookup of the same keys. The lookup rate must not fall with
 * the size: both paths are index lookups. All sizes are loaded first and then timed in
 * alternating rounds (the median is reported), so a change in machine load hits every size alike.
 */
export async function lookupBench(
  sizes: number[],
  ops: number,
  rounds: number,
): Promise<LookupRow[]> {
  const server = await EmbeddedMongoServer.start();
  const client = new MongoClient(server.uri);
  try {
    const prepared: Prepared[] = [];
    for (const size of sizes) {
      const docs = await load(client, size);
      prepared.push({
        size,
        coll: client.db('bench').collection(`docs${size}`),
        docs,
        // Random keys spread over the whole collection, the same sequence for store and reference.
        picks: Array.from({ length: ops + 200 }, (_, i) => docs[(i * 2654435761) % size]),
        byId: new Map(docs.map((d) => [(d._id as ObjectId).toHexString(), d])),
        byEmail: new Map(docs.map((d) => [d.email as string, d])),
      });
    }
    const samples = new Map<string, { store: Rate[]; reference: Rate[] }>();
    for (let round = 0; round < rounds; round++) {
      for (const kind of KINDS) {
        for (const p of prepared) {
          const key = `${kind.what}@${p.size}`;
          const entry = samples.get(key) ?? { store: [], reference: [] };
          samples.set(key, entry);
          const n = kind.ops(p, ops);
          entry.store.push(await timeSequential(n, (i) => kind.store(p, i), Math.min(50, n)));
          entry.reference.push(
            timeSync(kind.what.includes('scan') ? n * 10 : 1_000_000, (i) => kind.reference(p, i)),
          );
        }
      }
    }
    return KINDS.flatMap((kind) =>
      prepared.map((p) => {
        const entry = samples.get(`${kind.what}@${p.size}`)!;
        return {
          what: kind.what,
          docs: p.size,
          store: median(entry.store),
          reference: median(entry.reference),
          referenceName: kind.referenceName,
        };
      }),
    );
  } finally {
    await client.close();
    await server.stop();
  }
}

/** Driver round trips of `ping`: what every command costs before it does any work. */
export async function pingBench(ops: number): Promise<Rate> {
  const server = await EmbeddedMongoServer.start();
  const client = new MongoClient(server.uri);
  try {
    const admin = client.db('admin');
    return await timeSequential(ops, () => admin.command({ ping: 1 }));
  } finally {
    await client.close();
    await server.stop();
  }
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
    const pipeline = [
      { $group: { _id: '$cat', total: { $sum: '$amount' }, count: { $sum: 1 } } },
      { $sort: { _id: 1 } },
    ];
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
      throw new Error(
        `$group answer differs from the reference: ${JSON.stringify(got).slice(0, 200)}`,
      );
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
