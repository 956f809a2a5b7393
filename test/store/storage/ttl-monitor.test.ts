import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { EmbeddedMongoServer } from '../../../src/store/server';
import { Catalog } from '../../../src/store/storage/catalog';
import { MemoryJournal } from '../../../src/store/storage/memory-journal';
import { TtlMonitor } from '../../../src/store/storage/ttl-monitor';

describe('TtlMonitor', () => {
  it('deletes expired documents through a journaled commit, one pass at a time', async () => {
    const journal = new MemoryJournal();
    const catalog = await Catalog.open(journal);
    const old = new Date(Date.now() - 120_000);
    await catalog.commit([
      {
        op: 'createIndexes',
        ns: 'db.s',
        specs: [{ v: 2, key: { at: 1 }, name: 'at_1', expireAfterSeconds: 60 }],
      },
      {
        op: 'insert',
        ns: 'db.s',
        docs: [
          { _id: 1, at: old },
          { _id: 2, at: new Date() },
        ],
      },
    ]);
    const appended = jest.spyOn(journal, 'append');
    const monitor = new TtlMonitor(catalog, 3600);
    try {
      await Promise.all([monitor.pass(), monitor.pass()]);
      expect([...catalog.collection('db', 's')!.docs.values()].map((d) => d._id)).toEqual([2]);
      expect(appended.mock.calls).toEqual([[[{ op: 'delete', ns: 'db.s', ids: [1] }]]]);
    } finally {
      await monitor.stop();
    }
  });

  it('refuses a period that is not a positive number of seconds', async () => {
    const catalog = await Catalog.open(new MemoryJournal());
    expect(() => new TtlMonitor(catalog, 0)).toThrow(RangeError);
    expect(() => new TtlMonitor(catalog, Number.NaN)).toThrow(RangeError);
    const monitor = new TtlMonitor(catalog, 3600);
    try {
      expect(() => (monitor.sleepSecs = -1)).toThrow(RangeError);
      expect(monitor.sleepSecs).toBe(3600);
    } finally {
      await monitor.stop();
    }
  });

  it('starts a new period when its period changes', async () => {
    const catalog = await Catalog.open(new MemoryJournal());
    await catalog.commit([
      {
        op: 'createIndexes',
        ns: 'db.s',
        specs: [{ v: 2, key: { at: 1 }, name: 'at_1', expireAfterSeconds: 0 }],
      },
      { op: 'insert', ns: 'db.s', docs: [{ _id: 1, at: new Date(Date.now() - 1_000) }] },
    ]);
    const monitor = new TtlMonitor(catalog, 3600);
    try {
      monitor.sleepSecs = 0.05;
      const deadline = Date.now() + 5_000;
      while (catalog.collection('db', 's')!.docs.size > 0 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      expect(catalog.collection('db', 's')!.docs.size).toBe(0);
    } finally {
      await monitor.stop();
    }
  });

  it('runs in the server, its deletions surviving a restart, and stops with it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ttl-monitor-'));
    try {
      const server = await EmbeddedMongoServer.start({ dataDir, ttlMonitorSleepSecs: 0.1 });
      const client = await MongoClient.connect(server.uri);
      const coll = client.db('app').collection<{ _id: number; at: Date }>('sessions');
      await coll.createIndex({ at: 1 }, { expireAfterSeconds: 0 });
      await coll.insertMany([
        { _id: 1, at: new Date(Date.now() - 1_000) },
        { _id: 2, at: new Date(Date.now() + 3_600_000) },
      ]);
      const deadline = Date.now() + 5_000;
      while ((await coll.countDocuments()) !== 1 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      await client.close();
      await server.stop();

      const reopened = await EmbeddedMongoServer.start({ dataDir });
      const again = await MongoClient.connect(reopened.uri);
      const ids = await again.db('app').collection('sessions').distinct('_id');
      expect(ids).toEqual([2]);
      await again.close();
      await reopened.stop();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
