import mongoose, { Schema, type Connection } from 'mongoose';
import { openTarget, type ConformanceTarget } from './target';

interface User {
  email: string;
  name?: string;
  age?: number;
  team?: mongoose.Types.ObjectId;
}

describe('through mongoose models', () => {
  let target: ConformanceTarget;
  let conn: Connection;
  let User: mongoose.Model<User>;
  let Team: mongoose.Model<{ name: string }>;

  beforeAll(async () => {
    target = await openTarget('mongoose');
    conn = await mongoose.createConnection(target.uri, { dbName: target.dbName }).asPromise();
    Team = conn.model('Team', new Schema({ name: { type: String, required: true } }));
    User = conn.model<User>(
      'User',
      new Schema<User>(
        {
          email: { type: String, required: true, unique: true },
          name: String,
          age: Number,
          team: { type: Schema.Types.ObjectId, ref: 'Team' },
        },
        { timestamps: true },
      ),
    );
    await User.init();
  });

  afterEach(async () => {
    expect(await target.openCursors()).toBe(0);
  });

  afterAll(async () => {
    await conn.close();
    await target.close();
  });

  it('creates, reads, updates and deletes documents', async () => {
    const team = await Team.create({ name: 'core' });
    const user = await User.create({ email: 'a@x', name: 'Ann', age: 30, team: team._id });
    const found = await User.findById(user._id).lean();
    expect(found).toMatchObject({ email: 'a@x', name: 'Ann', age: 30 });
    expect(found!.team!.equals(team._id)).toBe(true);
    const updated = await User.findOneAndUpdate(
      { email: 'a@x' },
      { $inc: { age: 1 } },
      { returnDocument: 'after' },
    ).lean();
    expect(updated!.age).toBe(31);
    const populated = await User.findById(user._id)
      .populate<{ team: { name: string } }>('team')
      .lean();
    expect(populated!.team.name).toBe('core');
    expect(await User.countDocuments({ age: { $gte: 31 } })).toBe(1);
    await User.deleteOne({ _id: user._id });
    expect(await User.findById(user._id)).toBeNull();
  });

  it('turns a unique violation into a duplicate key error mongoose recognises', async () => {
    await User.create({ email: 'dup@x' });
    const err = await User.create({ email: 'dup@x' }).catch((e: unknown) => e);
    expect((err as { code: number }).code).toBe(11000);
    expect((err as { keyValue: object }).keyValue).toEqual({ email: 'dup@x' });
  });

  it('reports duplicates of an unordered insertMany and bulkWrite while keeping the rest', async () => {
    await User.create({ email: 'bulk1@x' });
    const err = await User.insertMany([{ email: 'bulk1@x' }, { email: 'bulk2@x' }], {
      ordered: false,
    }).catch((e: unknown) => e);
    expect((err as { code: number }).code).toBe(11000);
    expect(await User.countDocuments({ email: /^bulk/ })).toBe(2);
    const result = await User.bulkWrite([
      { updateOne: { filter: { email: 'bulk2@x' }, update: { $set: { age: 7 } } } },
      { updateMany: { filter: { email: /^bulk/ }, update: { $inc: { age: 1 } } } },
      { deleteOne: { filter: { email: 'bulk1@x' } } },
    ]);
    expect(result).toMatchObject({ matchedCount: 3, modifiedCount: 3, deletedCount: 1 });
    expect((await User.findOne({ email: 'bulk2@x' }).lean())!.age).toBe(8);
  });

  it('sorts, skips, limits and selects through queries', async () => {
    await User.insertMany([
      { email: 's1@x', age: 3 },
      { email: 's2@x', age: 1 },
      { email: 's3@x', age: 2 },
    ]);
    const rows = await User.find({ email: /^s\d/ })
      .sort({ age: -1 })
      .skip(1)
      .limit(2)
      .select('email -_id')
      .lean();
    expect(rows).toEqual([{ email: 's3@x' }, { email: 's2@x' }]);
    expect(await User.exists({ email: 's1@x' })).not.toBeNull();
    expect((await User.distinct('age', { email: /^s\d/ })).sort()).toEqual([1, 2, 3]);
  });

  it('syncs indexes (create and drop) from the schema', async () => {
    await User.collection.createIndex({ name: 1 }, { name: 'stray_1' });
    const dropped = await User.syncIndexes();
    expect(dropped).toEqual(['stray_1']);
    const names = (await User.listIndexes()).map((i: { name: string }) => i.name).sort();
    expect(names).toEqual(['_id_', 'email_1']);
  });

  it('aggregates through a model', async () => {
    await User.insertMany([
      { email: 'g1@x', age: 10 },
      { email: 'g2@x', age: 20 },
    ]);
    const [row] = await User.aggregate<{ avg: number }>([
      { $match: { email: /^g/ } },
      { $group: { _id: null, avg: { $avg: '$age' } } },
    ]);
    expect(row.avg).toBe(15);
  });

  it('refuses transactions like a standalone mongod', async () => {
    const err = await conn
      .transaction(async (session) => {
        await User.create([{ email: 'tx@x' }], { session });
      })
      .catch((e: unknown) => e);
    expect(originalCode(err)).toBe(20);
    expect(await User.countDocuments({ email: 'tx@x' })).toBe(0);
  });
});

/** The driver rewraps code 20 on writes as "does not support retryable writes", keeping the server's error. */
function originalCode(err: unknown): number | undefined {
  const e = err as { code?: number; originalError?: { code?: number } };
  return e.originalError?.code ?? e.code;
}
