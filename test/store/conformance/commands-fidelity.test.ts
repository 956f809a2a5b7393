import { calculateObjectSize } from 'bson';
import { MongoServerError, type Document } from 'mongodb';
import { useTarget } from './target';

const MAX = 16 * 1024 * 1024;
// {_id: <int32>, s: <string>} takes 22 bytes besides the string's characters.
const docOfSize = (id: number, size: number): Document => ({ _id: id, s: 'x'.repeat(size - 22) });

describe('command fidelity', () => {
  const target = useTarget('commands');
  const admin = () => target().client.db('admin');

  const error = async (p: Promise<unknown>) => {
    const err = await p.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MongoServerError);
    return err as MongoServerError;
  };

  describe('the 16 MiB document limit', () => {
    const coll = () => target().db.collection('big');

    it('refuses to insert a document over maxBsonObjectSize and stores nothing', async () => {
      const big = docOfSize(1, MAX + 1);
      expect(calculateObjectSize(big)).toBe(MAX + 1);
      const reply = await target().db.command({ insert: 'big', documents: [big] });
      expect(reply.n).toBe(0);
      expect(reply.writeErrors).toHaveLength(1);
      expect(reply.writeErrors[0]).toMatchObject({
        index: 0,
        code: 2,
        errmsg: `object to insert too large. size in bytes: ${MAX + 1}, max size: ${MAX}`,
      });
      expect(await coll().countDocuments({ _id: 1 as never })).toBe(0);
    });

    it('stores a document of exactly maxBsonObjectSize', async () => {
      const reply = await target().db.command({ insert: 'big', documents: [docOfSize(2, MAX)] });
      expect(reply).toMatchObject({ n: 1 });
      expect(reply.writeErrors).toBeUndefined();
    });

    it('refuses an update whose result is too large and leaves the document as it was', async () => {
      await coll().deleteMany({});
      await target().db.command({ insert: 'big', documents: [docOfSize(3, MAX - 4)] });
      const reply = await target().db.command({
        update: 'big',
        updates: [{ q: { _id: 3 }, u: { $set: { t: 'more' } } }],
      });
      expect(reply).toMatchObject({ n: 0, nModified: 0 });
      expect(reply.writeErrors[0].code).toBe(17419);
      expect(reply.writeErrors[0].errmsg).toMatch(
        /Resulting document after update is larger than 16777216$/,
      );
      expect(await coll().findOne({ _id: 3 as never }, { projection: { s: 0 } })).toEqual({
        _id: 3,
      });
    });

    it('refuses an upsert whose new document is too large and inserts nothing', async () => {
      const reply = await target().db.command({
        update: 'big',
        updates: [{ q: { _id: 4 }, u: { $set: { s: 'x'.repeat(MAX) } }, upsert: true }],
      });
      expect(reply.n).toBe(0);
      expect(reply.upserted).toBeUndefined();
      expect(reply.writeErrors[0].code).toBe(17420);
      expect(reply.writeErrors[0].errmsg).toMatch(/Document to upsert is larger than 16777216$/);
      expect(await coll().countDocuments({ _id: 4 as never })).toBe(0);
    });
  });

  describe('create with capped options', () => {
    const names = async (name: string) =>
      (await target().db.listCollections({ name }).toArray()).map((c) => c.name);

    it('needs size for a capped collection (72 InvalidOptions) and creates nothing', async () => {
      const err = await error(target().db.createCollection('capped_nosize', { capped: true }));
      expect(err.code).toBe(72);
      expect(err.codeName).toBe('InvalidOptions');
      expect(err.message).toBe("the 'size' field is required when 'capped' is true");
      expect(await names('capped_nosize')).toEqual([]);
    });

    it('needs capped: true for size or max', async () => {
      const err = await error(target().db.command({ create: 'sized', size: 4096 }));
      expect(err.code).toBe(72);
      expect(err.message).toBe(
        "the 'capped' field needs to be true when either the 'size' or 'max' fields are present",
      );
    });

    it('creates a capped collection with a size and lists its options', async () => {
      await target().db.createCollection('capped_ok', { capped: true, size: 4096 });
      const [info] = await target().db.listCollections({ name: 'capped_ok' }).toArray();
      expect((info as { options?: Document }).options).toMatchObject({ capped: true });
    });
  });

  describe('setParameter and getParameter', () => {
    const timeout = async () =>
      (await admin().command({ getParameter: 1, cursorTimeoutMillis: 1 }))
        .cursorTimeoutMillis as number;

    it('sets cursorTimeoutMillis, answers the previous value and getParameter reflects it', async () => {
      const before = await timeout();
      try {
        const reply = await admin().command({ setParameter: 1, cursorTimeoutMillis: 300_000 });
        expect(reply.was).toBe(before);
        expect(await timeout()).toBe(300_000);
      } finally {
        await admin().command({ setParameter: 1, cursorTimeoutMillis: before });
      }
      expect(await timeout()).toBe(before);
    });

    it('sets ttlMonitorSleepSecs at run time and refuses a period that is not positive (2), keeping the old one', async () => {
      const sleep = async () =>
        (await admin().command({ getParameter: 1, ttlMonitorSleepSecs: 1 }))
          .ttlMonitorSleepSecs as number;
      const before = await sleep();
      try {
        expect((await admin().command({ setParameter: 1, ttlMonitorSleepSecs: 30 })).was).toBe(
          before,
        );
        expect(await sleep()).toBe(30);
        expect(
          (await error(admin().command({ setParameter: 1, ttlMonitorSleepSecs: 0 }))).code,
        ).toBe(2);
        expect(
          (await error(admin().command({ setParameter: 1, ttlMonitorSleepSecs: -5 }))).code,
        ).toBe(2);
        expect(await sleep()).toBe(30);
      } finally {
        await admin().command({ setParameter: 1, ttlMonitorSleepSecs: before });
      }
      expect(await sleep()).toBe(before);
    });

    it('refuses an unknown parameter (72) and one only settable at startup (20)', async () => {
      const unknown = await error(admin().command({ setParameter: 1, noSuchParameterAnywhere: 1 }));
      expect(unknown.code).toBe(72);
      expect(unknown.message).toBe(
        'attempted to set unrecognized parameter [noSuchParameterAnywhere], use help:true to see options ',
      );
      const startup = await error(admin().command({ setParameter: 1, maxBSONDepth: 50 }));
      expect(startup.code).toBe(20);
      expect(startup.message).toBe('not allowed to change [maxBSONDepth] at runtime');
    });

    it('runs only against the admin database (13)', async () => {
      const err = await error(target().db.command({ setParameter: 1, cursorTimeoutMillis: 1000 }));
      expect(err.code).toBe(13);
      expect(err.message).toBe('setParameter may only be run against the admin database.');
      expect(
        (await error(target().db.command({ getParameter: 1, cursorTimeoutMillis: 1 }))).code,
      ).toBe(13);
    });
  });

  describe('collMod hiding an index', () => {
    const coll = () => target().db.collection('hiding');
    const spec = async (name: string) =>
      (await coll().listIndexes().toArray()).find((i) => i.name === name);
    const plan = async (filter: Document) =>
      (await coll().find(filter).explain('queryPlanner')).queryPlanner.winningPlan;

    beforeAll(async () => {
      await coll().insertMany([
        { _id: 1 as never, x: 1, u: 'a' },
        { _id: 2 as never, x: 2, u: 'b' },
      ]);
      await coll().createIndex({ x: 1 });
      await coll().createIndex({ u: 1 }, { unique: true });
    });

    it('hides and unhides by name: listIndexes shows it and queries stop or start using it', async () => {
      const hidden = await target().db.command({
        collMod: 'hiding',
        index: { name: 'x_1', hidden: true },
      });
      expect(hidden).toMatchObject({ hidden_old: false, hidden_new: true });
      expect((await spec('x_1'))!.hidden).toBe(true);
      expect((await plan({ x: 2 })).stage).toBe('COLLSCAN');
      expect(await coll().find({ x: 2 }).toArray()).toEqual([{ _id: 2, x: 2, u: 'b' }]);

      const shown = await target().db.command({
        collMod: 'hiding',
        index: { keyPattern: { x: 1 }, hidden: false },
      });
      expect(shown).toMatchObject({ hidden_old: true, hidden_new: false });
      expect((await spec('x_1'))!.hidden ?? false).toBe(false);
      expect((await plan({ x: 2 })).inputStage).toMatchObject({
        stage: 'IXSCAN',
        indexName: 'x_1',
      });
    });

    it('refuses a hint on a hidden index, and a hidden unique index still enforces uniqueness', async () => {
      await target().db.command({ collMod: 'hiding', index: { name: 'u_1', hidden: true } });
      try {
        const hint = await error(coll().find({ u: 'a' }).hint('u_1').toArray());
        expect(hint.code).toBe(2);
        expect((await error(coll().insertOne({ _id: 3 as never, u: 'a' }))).code).toBe(11000);
      } finally {
        await target().db.command({ collMod: 'hiding', index: { name: 'u_1', hidden: false } });
      }
    });

    it('answers IndexNotFound (27) for an unknown index, and refuses to hide _id_', async () => {
      expect(
        (
          await error(
            target().db.command({ collMod: 'hiding', index: { name: 'nope_1', hidden: true } }),
          )
        ).code,
      ).toBe(27);
      expect(
        (
          await error(
            target().db.command({
              collMod: 'hiding',
              index: { keyPattern: { nope: 1 }, hidden: true },
            }),
          )
        ).code,
      ).toBe(27);
      const id = await error(
        target().db.command({ collMod: 'hiding', index: { name: '_id_', hidden: true } }),
      );
      expect(id.code).toBe(2);
    });

    it('answers NamespaceNotFound (26) for a missing collection', async () => {
      expect(
        (
          await error(
            target().db.command({
              collMod: 'no_such_collection',
              index: { name: 'x_1', hidden: true },
            }),
          )
        ).code,
      ).toBe(26);
    });

    it('changes a validator and hides an index in one command, and changes neither when one is refused', async () => {
      const validator = async () =>
        (
          (await target().db.listCollections({ name: 'hiding' }).toArray())[0] as unknown as {
            options: Document;
          }
        ).options.validator;
      const badSchema = await error(
        target().db.command({
          collMod: 'hiding',
          validator: { $jsonSchema: { bogus: 1 } },
          index: { name: 'x_1', hidden: true },
        }),
      );
      expect(badSchema.code).toBe(9);
      const badIndex = await error(
        target().db.command({
          collMod: 'hiding',
          validator: { x: { $type: 'number' } },
          index: { name: 'nope_1', hidden: true },
        }),
      );
      expect(badIndex.code).toBe(27);
      expect(await validator()).toBeUndefined();
      expect((await spec('x_1'))!.hidden ?? false).toBe(false);
      try {
        const both = await target().db.command({
          collMod: 'hiding',
          validator: { x: { $type: 'number' } },
          index: { name: 'x_1', hidden: true },
        });
        expect(both).toMatchObject({ hidden_old: false, hidden_new: true });
        expect(await validator()).toEqual({ x: { $type: 'number' } });
        expect((await spec('x_1'))!.hidden).toBe(true);
        expect((await error(coll().insertOne({ _id: 9 as never, x: 'text' }))).code).toBe(121);
      } finally {
        await target().db.command({
          collMod: 'hiding',
          validator: {},
          index: { name: 'x_1', hidden: false },
        });
      }
    });
  });
});
