import mongoose from 'mongoose';
import { Role } from '../../src/auth/role';
import { SCOPES, type Scope, type VersionView } from '../../src/data/scopes';
import { VersionClock } from '../../src/data/version-clock';
import { MemberModel } from '../../src/models/member.model';
import { SETTINGS_ID, SettingsModel } from '../../src/models/settings.model';
import { startDatabase, type TestDatabase } from '../pipelines/support/database';

const WINDOW_MS = 5_000;

let db: TestDatabase;
let now = 0;
let clock: VersionClock;

beforeAll(async () => {
  db = await startDatabase();
  await MemberModel.create({ _id: 'm1', firstname: 'A', lastname: 'B', email: 'a@x.io', emailLower: 'a@x.io', role: Role.MEMBER, teamId: 't1' });
  await SettingsModel.updateOne({ _id: SETTINGS_ID }, { $set: { currency: 'EUR' } }, { upsert: true });
});
afterAll(async () => db.stop());

beforeEach(async () => {
  now = 10 * WINDOW_MS;
  clock = new VersionClock({ connection: mongoose.connection, maxAgeMs: WINDOW_MS, now: () => now });
  // The first content check gives every scope a version of its own; start from after it.
  await clock.view();
  await clock.checkContent();
});

/** The scopes whose versions differ between two views. */
function moved(before: VersionView, after: VersionView): Scope[] {
  return SCOPES.filter((scope) => before.versions[scope] !== after.versions[scope]);
}

describe('the version clock', () => {
  it('hands out the same view while nothing is written, and moves only the scope a write went to', async () => {
    const first = await clock.view();
    expect(await clock.view()).toBe(first);
    await SettingsModel.updateOne({ _id: SETTINGS_ID }, { $set: { currency: 'USD' } });
    const after = await clock.view();
    expect(moved(first, after)).toEqual(['settings']);
    expect(after.versions.settings).toBeGreaterThan(first.versions.settings);
  });

  it('keeps every version across windows while the data stays the same', async () => {
    const first = await clock.view();
    for (let window = 1; window <= 3; window += 1) {
      now += WINDOW_MS;
      await clock.view(); // starts the window's content check
      await clock.checkContent();
      expect(moved(first, await clock.view())).toEqual([]);
    }
  });

  it('sees a write made straight into the database (no counter moves) at the next window, in that scope only', async () => {
    const first = await clock.view();
    await mongoose.connection.collection<{ _id: string }>('members').updateOne({ _id: 'm1' }, { $set: { role: 'manager' } });
    // Within the window the write is not seen: the bound is one window and the check's read.
    await clock.checkContent();
    expect(moved(first, await clock.view())).toEqual([]);
    now += WINDOW_MS;
    await clock.view();
    await clock.checkContent();
    expect(moved(first, await clock.view())).toEqual(['members']);
  });

  it('sees a document removed straight from the database as well', async () => {
    const first = await clock.view();
    await mongoose.connection.collection<{ _id: string }>('settings').deleteOne({ _id: SETTINGS_ID });
    now += WINDOW_MS;
    await clock.view();
    await clock.checkContent();
    expect(moved(first, await clock.view())).toEqual(['settings']);
  });
});
