import { useTarget } from './target';

/**
 * TTL indexes: the monitor deletes documents whose indexed date is older than expireAfterSeconds.
 * The server is asked for one pass a second (setParameter ttlMonitorSleepSecs, restored
 * afterwards); a real mongod's first pass may still be up to a minute away, so the wait is longer
 * there.
 */
describe('TTL indexes', () => {
  const target = useTarget('ttl');
  const events = () =>
    target().db.collection<{ _id: number; at?: unknown; kind?: string }>('events');
  const waitLimitMs = () => (target().embedded ? 5_000 : 150_000);

  /** Polls until the collection holds `expected` documents (or the limit passes). */
  async function settle(expected: number): Promise<number> {
    const deadline = Date.now() + waitLimitMs();
    let n = await events().countDocuments();
    while (n !== expected && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      n = await events().countDocuments();
    }
    return n;
  }

  it('refuses TTL options mongod refuses (67 CannotCreateIndex)', async () => {
    await events()
      .drop()
      .catch(() => undefined);
    for (const expireAfterSeconds of ['soon', -1, 2 ** 31, Number.NaN]) {
      const err = await events()
        .createIndex({ at: 1 }, { expireAfterSeconds: expireAfterSeconds as number })
        .catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 67 });
    }
    expect(
      await events()
        .createIndex({ at: 1, kind: 1 }, { expireAfterSeconds: 60 })
        .catch((e: unknown) => e),
    ).toMatchObject({ code: 67 });
  });

  describe('with a short monitor period', () => {
    let previousSleep: number | undefined;

    beforeAll(async () => {
      const admin = target().client.db('admin');
      previousSleep = (await admin.command({ getParameter: 1, ttlMonitorSleepSecs: 1 }))
        .ttlMonitorSleepSecs as number;
      await admin.command({ setParameter: 1, ttlMonitorSleepSecs: 1 });
    });

    afterAll(async () => {
      if (previousSleep !== undefined)
        await target()
          .client.db('admin')
          .command({ setParameter: 1, ttlMonitorSleepSecs: previousSleep });
    });

    beforeEach(async () => {
      await events()
        .drop()
        .catch(() => undefined);
    });

    it('deletes documents whose date (the earliest, in an array) has expired, and nothing else', async () => {
      const now = Date.now();
      const hour = 3_600_000;
      await events().insertMany([
        { _id: 1, at: new Date(now - hour) },
        { _id: 2, at: new Date(now + hour) },
        { _id: 3, at: 'an hour ago' },
        { _id: 4 },
        { _id: 5, at: [new Date(now + hour), new Date(now - hour)] },
        { _id: 6, at: [now - hour, 'x'] },
        { _id: 7, at: now - hour },
      ]);
      await events().createIndex({ at: 1 }, { expireAfterSeconds: 60 });
      expect(await settle(5)).toBe(5);
      expect((await events().find().sort({ _id: 1 }).toArray()).map((d) => d._id)).toEqual([
        2, 3, 4, 6, 7,
      ]);
    }, 200_000);

    it('expires only what a partial TTL index covers, counting from expireAfterSeconds', async () => {
      const now = Date.now();
      await events().insertMany([
        { _id: 1, at: new Date(now - 10_000), kind: 'session' },
        { _id: 2, at: new Date(now - 10_000), kind: 'audit' },
        { _id: 3, at: new Date(now - 10_000 + 3_600_000), kind: 'session' },
      ]);
      await events().createIndex(
        { at: 1 },
        { expireAfterSeconds: 5, partialFilterExpression: { kind: 'session' } },
      );
      expect(await settle(2)).toBe(2);
      expect((await events().find().sort({ _id: 1 }).toArray()).map((d) => d._id)).toEqual([2, 3]);
    }, 200_000);
  });
});
