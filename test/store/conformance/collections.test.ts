import { MongoServerError } from 'mongodb';
import { useTarget } from './target';

describe('databases and collections', () => {
  const target = useTarget('collections');

  const error = async (p: Promise<unknown>) => {
    const err = await p.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MongoServerError);
    return err as MongoServerError;
  };

  it('creates a collection explicitly and refuses an existing name (48)', async () => {
    await target().db.createCollection('explicit');
    const err = await error(target().db.command({ create: 'explicit' }));
    expect(err.code).toBe(48);
    const names = (await target().db.listCollections({}, { nameOnly: true }).toArray()).map(
      (c) => c.name,
    );
    expect(names).toContain('explicit');
  });

  it('creates a collection implicitly on insert and lists it with a filter', async () => {
    await target().db.collection('implicit').insertOne({ a: 1 });
    const listed = await target().db.listCollections({ name: 'implicit' }).toArray();
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ name: 'implicit', type: 'collection' });
  });

  it('refuses invalid collection and database names (73)', async () => {
    expect((await error(target().db.command({ insert: 'bad$name', documents: [{}] }))).code).toBe(
      73,
    );
    expect(
      (
        await error(
          target()
            .client.db('bad db')
            .command({ insert: 'c', documents: [{}] }),
        )
      ).code,
    ).toBe(73);
  });

  it('drops collections; dropping a missing one succeeds (mongod 7.0)', async () => {
    await target().db.collection('todrop').insertOne({ a: 1 });
    expect(await target().db.collection('todrop').drop()).toBe(true);
    expect(await target().db.collection('todrop').countDocuments()).toBe(0);
    expect((await target().db.command({ drop: 'todrop' })).ok).toBe(1);
  });

  it('renames a collection with its documents and indexes', async () => {
    const src = target().db.collection('src');
    await src.insertMany([{ k: 1 }, { k: 2 }]);
    await src.createIndex({ k: 1 }, { unique: true });
    await src.rename('dst');
    const dst = target().db.collection('dst');
    expect(await dst.countDocuments()).toBe(2);
    expect((await dst.listIndexes().toArray()).map((i) => i.name)).toEqual(['_id_', 'k_1']);
    expect((await error(dst.insertOne({ k: 1 }))).code).toBe(11000);
    await target().db.collection('other').insertOne({});
    expect((await error(dst.rename('other'))).code).toBe(48);
    await dst.rename('other', { dropTarget: true });
    expect(await target().db.collection('other').countDocuments()).toBe(2);
  });

  it('lists databases, with nameOnly and a filter', async () => {
    await target().db.collection('any').insertOne({});
    const all = await target().client.db('admin').admin().listDatabases();
    expect(all.databases.map((d) => d.name)).toContain(target().dbName);
    const filtered = await target()
      .client.db('admin')
      .command({ listDatabases: 1, nameOnly: true, filter: { name: target().dbName } });
    expect(filtered.databases).toEqual([{ name: target().dbName }]);
  });

  it('reports collStats and dbStats', async () => {
    const c = target().db.collection('stats');
    await c.insertMany([{ a: 1 }, { a: 2 }, { a: 3 }]);
    const cs = await target().db.command({ collStats: 'stats' });
    expect(cs).toMatchObject({ ns: `${target().dbName}.stats`, count: 3, nindexes: 1 });
    expect(cs.size).toBeGreaterThan(0);
    expect(cs.avgObjSize).toBe(Math.floor(cs.size / 3));
    const ds = await target().db.stats();
    expect(ds.db).toBe(target().dbName);
    expect(ds.objects).toBeGreaterThanOrEqual(3);
    expect(ds.collections).toBeGreaterThanOrEqual(1);
  });

  it('drops a whole database', async () => {
    const other = target().client.db(`${target().dbName}_x`);
    await other.collection('a').insertOne({});
    expect(await other.dropDatabase()).toBe(true);
    const dbs = await target().client.db('admin').admin().listDatabases({ nameOnly: true });
    expect(dbs.databases.map((d) => d.name)).not.toContain(`${target().dbName}_x`);
  });
});
