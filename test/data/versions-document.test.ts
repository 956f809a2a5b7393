import mongoose from 'mongoose';
import { readVersions } from '../../src/data/versions-document';
import { SCOPES, type Scope } from '../../src/data/scopes';
import { MemberModel } from '../../src/models/member.model';
import { SETTINGS_ID, SettingsModel } from '../../src/models/settings.model';
import { TeamModel } from '../../src/models/team.model';
import { TargetModel } from '../../src/models/target.model';
import { startDatabase, type TestDatabase } from '../pipelines/support/database';

let db: TestDatabase;
beforeAll(async () => {
  db = await startDatabase();
});
afterAll(async () => db.stop());

/** Which counters `write` moved, and by how much. */
async function bumpedBy(write: () => Promise<unknown>): Promise<Partial<Record<Scope, number>>> {
  const before = await readVersions(mongoose.connection);
  await write().catch(() => undefined);
  const after = await readVersions(mongoose.connection);
  return Object.fromEntries(SCOPES.filter((s) => after[s] !== before[s]).map((s) => [s, after[s] - before[s]]));
}

const member = (id: string, email: string) => ({ _id: id, firstname: 'A', lastname: 'B', email, emailLower: email, role: 'member', teamId: 't1' });

describe('the versions document', () => {
  it('moves the counter of the collection each kind of write goes to, before the write resolves', async () => {
    expect(await bumpedBy(() => TeamModel.create({ _id: 't1', name: 'One' }))).toEqual({ teams: 1 });
    expect(await bumpedBy(() => MemberModel.insertMany([member('m1', 'a@x.io'), member('m2', 'b@x.io')]))).toEqual({ members: 1 });
    expect(await bumpedBy(() => MemberModel.updateOne({ _id: 'm1' }, { $set: { role: 'manager' } }).exec())).toEqual({ members: 1 });
    expect(await bumpedBy(() => SettingsModel.updateOne({ _id: SETTINGS_ID }, { $set: { currency: 'EUR' } }, { upsert: true }).exec())).toEqual({ settings: 1 });
    expect(await bumpedBy(() => TargetModel.deleteMany({}).exec())).toEqual({ targets: 1 });
    expect(await bumpedBy(() => MemberModel.findOneAndUpdate({ _id: 'm2' }, { $set: { teamId: 't1' } }).exec())).toEqual({ members: 1 });
    expect(await bumpedBy(() => MemberModel.deleteOne({ _id: 'm2' }).exec())).toEqual({ members: 1 });
    // Reads move nothing.
    expect(await bumpedBy(() => MemberModel.find({}).lean().exec())).toEqual({});
  });

  it('moves it also when a write failed part-way (an unordered insert stored some documents)', async () => {
    const bumped = await bumpedBy(() => MemberModel.insertMany([member('m3', 'c@x.io'), member('m4', 'a@x.io')], { ordered: false }));
    expect(bumped).toEqual({ members: 1 });
    expect(await MemberModel.exists({ _id: 'm3' })).not.toBeNull();
  });
});
