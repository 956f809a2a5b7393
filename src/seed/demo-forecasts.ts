import type { Role } from '../auth/role';
import { Role as Roles } from '../auth/role';
import type { ForecastCadence } from '../domain/forecast-cadence';
import { cadencePointAtOrBefore, nextCadencePoint } from '../domain/forecast-cadence';
import type { StageCategoryMapping } from '../domain/forecast-category';
import { periodName } from '../domain/forecast-period';
import { periodOf, previousPeriod, type PeriodSlot } from '../domain/period';
import type { ForecastSubmissionDoc } from '../models/forecast-submission.model';
import { DEMO_PERIOD, DEMO_PIPELINES } from './demo-company';
import type { DemoDocuments } from './generate-demo';
import { Prng } from './prng';

/** The demo's calls are due every Monday. */
export const DEMO_CADENCE: ForecastCadence = { every: 'week', day: 'monday' };

/** The demo's Renewals are mapped by hand: a usage review is no best case yet. */
export const DEMO_FORECAST_MAPPINGS: StageCategoryMapping[] = [
  {
    definitionId: '90210001',
    stages: [
      { stageId: '90210011', category: 'pipeline' },
      { stageId: '90210012', category: 'pipeline' },
      { stageId: '90210013', category: 'best_case' },
      { stageId: '90210014', category: 'commit' },
    ],
  },
];

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const PROBABILITY = new Map(DEMO_PIPELINES.flatMap((p) => p.stages.map((s) => [s.id, s] as const)));

/**
 * Reps' own forecast categories on some open New Business deals, as HubSpot carries them
 * (`hs_manual_forecast_category`): about one in eight, mostly COMMIT or BEST_CASE, a few OMIT.
 * Deterministic for a seed.
 */
export function addDemoForecastCategories(docs: DemoDocuments, seed: number): void {
  const rng = new Prng(seed);
  for (const page of docs.deals) {
    for (const deal of page.results) {
      const props = deal.properties;
      const r = rng.next();
      if (
        !props ||
        props.pipeline !== 'default' ||
        PROBABILITY.get(props.dealstage ?? '')?.isClosed !== false
      )
        continue;
      if (r < 0.06) props.hs_manual_forecast_category = 'COMMIT';
      else if (r < 0.1) props.hs_manual_forecast_category = 'BEST_CASE';
      else if (r < 0.12) props.hs_manual_forecast_category = 'OMIT';
    }
  }
}

/** A demo person who calls: their member id, team and role. */
export interface DemoForecaster {
  ownerId: string;
  memberId: string;
  teamId: string;
  role: Role;
}

/** What a member of the demo will have won in a quarter, and still has open closing in it (weighted). */
function outlook(
  docs: DemoDocuments,
  slot: PeriodSlot,
): Map<string, { won: number; open: number }> {
  const byOwner = new Map<string, { won: number; open: number }>();
  for (const page of docs.deals) {
    for (const deal of page.results) {
      const p = deal.properties ?? {};
      const stage = PROBABILITY.get(p.dealstage ?? '');
      const close = p.closedate ? Date.parse(p.closedate) : NaN;
      if (
        !stage ||
        !p.hubspot_owner_id ||
        !(close >= slot.startsAt.getTime() && close < slot.endsBefore.getTime())
      )
        continue;
      const entry = byOwner.get(p.hubspot_owner_id) ?? { won: 0, open: 0 };
      const amount = Number(p.amount ?? 0);
      if (stage.isClosed) entry.won += stage.probability === 1 ? amount : 0;
      else entry.open += amount * stage.probability;
      byOwner.set(p.hubspot_owner_id, entry);
    }
  }
  return byOwner;
}

const NOTES = [
  'Two renewals slipped to next quarter',
  'Big deal in legal review',
  'Pipeline looks thin after the holidays',
  'Pulled in a deal from next quarter',
];

/**
 * The demo's forecast calls over the previous and the current quarter, up to `now`: every Monday
 * each member and manager calls their quarter (some on Monday morning, some days late, some not
 * at all), managers call their team the next day and the admin the company the day after. Each
 * person has a bias (some call close to what they win, some far over or under) that fades as the
 * quarter goes on. Deterministic for a seed and `now`.
 */
export function demoForecastCalls(
  docs: DemoDocuments,
  forecasters: readonly DemoForecaster[],
  now: Date,
  seed: number,
): ForecastSubmissionDoc[] {
  const rng = new Prng(seed);
  const current = periodOf(DEMO_PERIOD, now);
  const quarters = [previousPeriod(current), current];
  const profile = new Map(
    forecasters.map((f) => [
      f.memberId,
      {
        bias: rng.chance(0.4) ? (rng.next() - 0.5) * 0.1 : (rng.next() - 0.4) * 0.6,
        late: rng.next() * 0.35,
        misses: 0.05 + rng.next() * 0.25,
      },
    ]),
  );
  const calls: ForecastSubmissionDoc[] = [];
  let counter = 0;
  const add = (
    slot: PeriodSlot,
    scope: string,
    by: DemoForecaster | null,
    at: number,
    call: number,
  ) => {
    const seconds = Math.floor(at / 1000);
    calls.push({
      _id: seconds.toString(16).padStart(8, '0') + (counter++).toString(16).padStart(16, '0'),
      period: periodName(slot),
      unit: DEMO_PERIOD,
      scope,
      scopeKind: scope === 'company' ? 'company' : scope.startsWith('team:') ? 'team' : 'member',
      scopeId: scope === 'company' ? null : scope.slice(scope.indexOf(':') + 1),
      call,
      bestCase: Math.round((call * (1.1 + rng.next() * 0.2)) / 500) * 500,
      note: rng.chance(0.05) ? rng.pick(NOTES) : null,
      submittedAt: new Date(at),
      recordedAt: new Date(at),
      submittedBy: by
        ? { subject: by.memberId, memberId: by.memberId, role: by.role }
        : { subject: 'demo-seed', memberId: null, role: Roles.ADMIN },
    });
  };
  const round = (value: number) => Math.max(0, Math.round(value / 500) * 500);
  const admin = forecasters.find((f) => f.role === Roles.ADMIN) ?? null;
  for (const slot of quarters) {
    const expected = outlook(docs, slot);
    const end = Math.min(slot.endsBefore.getTime(), now.getTime());
    const weeks = Math.ceil((slot.endsBefore.getTime() - slot.startsAt.getTime()) / (7 * DAY));
    let monday = cadencePointAtOrBefore(DEMO_CADENCE, slot.startsAt);
    // The latest call of each member and of each team so far: a member or a manager who skips a
    // week still has their last call counted in the roll-up above them.
    const latest = new Map<string, number>();
    const latestTeam = new Map<string, number>();
    for (let week = 0; monday.getTime() < end; week += 1) {
      const fade = Math.max(0, 1 - week / weeks);
      for (const f of forecasters) {
        if (f.role === Roles.ADMIN) continue;
        const p = profile.get(f.memberId)!;
        if (rng.chance(p.misses)) continue;
        const late = rng.chance(p.late) ? (2 + rng.int(0, 2)) * DAY : 0;
        const at = monday.getTime() + late + (8 + rng.int(0, 3)) * HOUR + rng.int(0, 59) * 60_000;
        if (at >= end) continue;
        const outlookOf = expected.get(f.ownerId) ?? { won: 0, open: 0 };
        const base = slot === current ? outlookOf.won + outlookOf.open : outlookOf.won;
        const noise = (rng.next() - 0.5) * 0.3;
        const call = round(base * (1 + (p.bias + noise) * fade));
        add(slot, `member:${f.memberId}`, f, at, call);
        latest.set(f.memberId, call);
      }
      let teamCalled = false;
      for (const manager of forecasters.filter((f) => f.role === Roles.MANAGER)) {
        const at = monday.getTime() + DAY + 10 * HOUR;
        if (at >= end || rng.chance(0.1)) continue;
        const sum = forecasters
          .filter((f) => f.teamId === manager.teamId && latest.has(f.memberId))
          .reduce((s, f) => s + latest.get(f.memberId)!, 0);
        const call = round(sum * (0.93 + rng.next() * 0.1));
        add(slot, `team:${manager.teamId}`, manager, at, call);
        latestTeam.set(manager.teamId, call);
        teamCalled = true;
      }
      const at = monday.getTime() + 2 * DAY + 9 * HOUR;
      if (at < end && teamCalled)
        add(
          slot,
          'company',
          admin,
          at,
          round([...latestTeam.values()].reduce((a, b) => a + b, 0) * (0.97 + rng.next() * 0.05)),
        );
      monday = nextCadencePoint(DEMO_CADENCE, monday);
    }
  }
  return calls;
}
