import mongoose from 'mongoose';
import { Role } from '../../src/auth/role';
import { DefinitionModel } from '../../src/models/definition.model';
import { ForecastSubmissionModel } from '../../src/models/forecast-submission.model';
import { MemberModel } from '../../src/models/member.model';
import { opportunitiesOf } from '../helpers/opportunities-of';
import { SettingsModel } from '../../src/models/settings.model';
import { SnapshotModel } from '../../src/models/snapshot.model';
import { TargetModel } from '../../src/models/target.model';
import { TeamModel } from '../../src/models/team.model';
import { seedDemoIfEmpty } from '../../src/seed/seed-demo';
import { startTestDatabase, TestDatabase } from '../import/db';

/** The gateway on its embedded database, SEED_DEMO unset. */
const EMBEDDED = { shared: false, seedDemo: true };

const NOW = new Date('2026-02-15T12:00:00.000Z');
// Fewer deals than the default 3000 keep the test quick; the generator test covers the default set.
const DEALS = 600;
// The seed runs five imports (the demo's recent weeks, week by week): more than jest's default minute on a loaded machine.
const SEED_TIMEOUT_MS = 240_000;

let db: TestDatabase;
beforeAll(async () => {
  db = await startTestDatabase();
});
afterAll(async () => {
  await db?.stop();
});

describe('seedDemoIfEmpty', () => {
  it(
    'seeds the demo company into an empty embedded database, and not again on a second start',
    async () => {
      const result = await seedDemoIfEmpty(mongoose.connection, EMBEDDED, {
        now: NOW,
        deals: DEALS,
      });
      expect(result).not.toBeNull();
      expect(result!.import.counts).toEqual({
        pipelines: 2,
        stages: 13,
        deals: DEALS,
        owners: 12,
        teams: 3,
        membersCreated: 12,
      });
      expect(result!.import.skipped).toEqual([]);

      expect(await SettingsModel.findById('account').lean()).toMatchObject({
        currency: 'EUR',
        period: 'quarterly',
      });
      expect((await TeamModel.find().sort({ _id: 1 }).lean()).map((t) => t.name)).toEqual([
        'Nordics',
        'DACH',
        'Benelux',
      ]);
      const members = await MemberModel.find().lean();
      expect(members).toHaveLength(12);
      const roles = members.map((m) => m.role);
      expect(roles.filter((r) => r === Role.ADMIN)).toHaveLength(1);
      const managers = members.filter((m) => m.role === Role.MANAGER);
      expect(new Set(managers.map((m) => m.teamId)).size).toBe(3);
      expect(managers).toHaveLength(3);

      const targets = await TargetModel.find().lean();
      expect(targets).toHaveLength(24);
      expect(new Set(targets.map((t) => t.year))).toEqual(new Set([2025, 2026]));
      expect(
        targets.every(
          (t) => t.currency === 'EUR' && t.period === 'quarterly' && t.amounts.length === 4,
        ),
      ).toBe(true);

      // Backfill: Q1 2024 (two years back) to Q4 2025, then the current snapshot.
      const snapshots = await SnapshotModel.find().sort({ snapshotAt: 1 }).lean();
      expect(snapshots.every((s) => s.status === 'committed')).toBe(true);
      expect(snapshots[snapshots.length - 1].snapshotAt.toISOString()).toBe(NOW.toISOString());
      expect(snapshots.length).toBeGreaterThanOrEqual(9);
      const current = snapshots[snapshots.length - 1]._id;
      expect(await opportunitiesOf(current)).toHaveLength(DEALS);
      expect(await DefinitionModel.find({ snapshotId: current }).lean()).toHaveLength(2);

      // Forecasts: a weekly cadence, and categories from each source in the current snapshot.
      expect(await SettingsModel.findById('account').lean()).toMatchObject({
        forecastCadence: { every: 'week', day: 'monday' },
      });
      const sources = new Set(
        (await opportunitiesOf(current)).map((o) => o.forecastCategorySource),
      );
      expect([...sources].sort()).toEqual(['crm', 'mapping', 'outcome', 'probability']);
      // Calls over the previous and the current quarter, none after now, at every level.
      const calls = await ForecastSubmissionModel.find().lean();
      expect(calls).toHaveLength(result!.forecastCalls);
      expect(new Set(calls.map((c) => c.period))).toEqual(new Set(['2025-Q4', '2026-Q1']));
      expect(new Set(calls.map((c) => c.scopeKind))).toEqual(
        new Set(['member', 'team', 'company']),
      );
      expect(calls.every((c) => c.submittedAt.getTime() <= NOW.getTime())).toBe(true);
      // Members call on Mondays, some days late, and some weeks not at all.
      const memberCalls = calls.filter((c) => c.scopeKind === 'member' && c.period === '2025-Q4');
      const late = memberCalls.filter((c) => c.submittedAt.getUTCDay() !== 1);
      expect(late.length).toBeGreaterThan(0);
      expect(late.length).toBeLessThan(memberCalls.length / 2);
      const weekOf = (at: Date) => Math.floor((at.getTime() - 4 * 86_400_000) / (7 * 86_400_000));
      const weeks = new Set(memberCalls.map((c) => weekOf(c.submittedAt)));
      const callers = new Set(memberCalls.map((c) => c.scopeId));
      const called = new Set(memberCalls.map((c) => `${c.scopeId} ${weekOf(c.submittedAt)}`));
      expect(called.size).toBeLessThan(weeks.size * callers.size);

      const count = await SnapshotModel.find({}, { _id: 1 }).lean();
      expect(
        await seedDemoIfEmpty(mongoose.connection, EMBEDDED, {
          now: new Date(NOW.getTime() + 86_400_000),
        }),
      ).toBeNull();
      expect(await SnapshotModel.find({}, { _id: 1 }).lean()).toHaveLength(count.length);
    },
    SEED_TIMEOUT_MS,
  );

  it(
    'loads the whole demo again when the previous seed was stopped half-way, leftovers cleared',
    async () => {
      await db.clear();
      await mongoose.connection.db!.collection('gateway_state').deleteMany({});
      let snapshotsReported = 0;
      const stopHalfWay = (progress: { step: string }) => {
        if (progress.step === 'snapshots' && ++snapshotsReported === 3)
          throw new Error('stopped half-way');
      };
      await expect(
        seedDemoIfEmpty(mongoose.connection, EMBEDDED, {
          now: NOW,
          deals: DEALS,
          onProgress: stopHalfWay,
        }),
      ).rejects.toThrow('stopped half-way');
      // Settings were already written: such a database must not count as in use.
      expect(await SettingsModel.findById('account').lean()).not.toBeNull();
      // A SIGKILL also leaves what the import had written; stand in for it with a stray team.
      await TeamModel.create({ _id: 'leftover', name: 'Leftover' });

      const result = await seedDemoIfEmpty(mongoose.connection, EMBEDDED, {
        now: NOW,
        deals: DEALS,
      });
      expect(result).not.toBeNull();
      expect((await TeamModel.find().sort({ _id: 1 }).lean()).map((t) => t.name)).toEqual([
        'Nordics',
        'DACH',
        'Benelux',
      ]);
      expect(await MemberModel.countDocuments()).toBe(12);
      expect(await TargetModel.countDocuments()).toBe(24);
      const snapshots = await SnapshotModel.find().lean();
      expect(snapshots.length).toBeGreaterThanOrEqual(9);
      expect(snapshots.every((s) => s.status === 'committed')).toBe(true);
      // Loaded now: a later start leaves it alone.
      expect(
        await seedDemoIfEmpty(mongoose.connection, EMBEDDED, { now: NOW, deals: DEALS }),
      ).toBeNull();
    },
    SEED_TIMEOUT_MS,
  );

  it('never seeds with MONGODB_URI set or SEED_DEMO=0', async () => {
    await db.clear();
    expect(
      await seedDemoIfEmpty(mongoose.connection, { shared: true, seedDemo: true }, { now: NOW }),
    ).toBeNull();
    expect(
      await seedDemoIfEmpty(mongoose.connection, { shared: false, seedDemo: false }, { now: NOW }),
    ).toBeNull();
    expect(await MemberModel.find().lean()).toEqual([]);
  });
});
