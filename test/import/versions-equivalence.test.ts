import { Role } from '../../src/auth/role';
import { MemberModel } from '../../src/models/member.model';
import { OpportunityModel } from '../../src/models/opportunity.model';
import { SnapshotModel } from '../../src/models/snapshot.model';
import { TeamModel } from '../../src/models/team.model';
import { startGateway, TestGateway } from '../helpers/gateway';
import { readsOf } from './snapshot-reads';
import { fixture, messyImport } from './fixtures';

/**
 * Deal history stored as versions must read exactly as a full copy per snapshot: a sequence of
 * full and incremental imports (deletions by `archived` and by absence from a full import, owner
 * changes, stage moves back and forth, amount to null, new deals, wins and losses, a backfilled
 * import) is imported into one database; the whole picture of each import is imported as a full
 * import into a second, fresh one, where every snapshot is a picture of its own. Every read of
 * every snapshot must answer the same in both.
 */

type Deal = { id: string; archived?: boolean; properties: Record<string, string | null> };

/** One import of the sequence: what the first database receives. */
interface Step {
  body: Record<string, unknown>;
  /** The deals of the whole picture after the step, for the second database. */
  picture: Deal[];
}

const PIPELINES = fixture('messy/pipelines.json');
const OWNERS = fixture('messy/owners.json');

/** The messy deals, first occurrence of each id. */
function messyDeals(): Deal[] {
  const seen = new Set<string>();
  return (messyImport().deals as { results: Deal[] }[])
    .flatMap((page) => page.results)
    .filter((d) => (seen.has(d.id) ? false : (seen.add(d.id), true)));
}

function changed(picture: Deal[], id: string, properties: Record<string, string | null>): Deal {
  const base = picture.find((d) => d.id === id) ?? { id, properties: {} };
  return { id, properties: { ...base.properties, ...properties, hs_object_id: id } };
}

/** Applies carried deals (replacing or adding) and removals (archived) to a picture. */
function apply(picture: Deal[], carried: Deal[]): Deal[] {
  const next = new Map(picture.map((d) => [d.id, d]));
  for (const deal of carried) {
    if (deal.archived) next.delete(deal.id);
    else next.set(deal.id, deal);
  }
  return [...next.values()];
}

function steps(): Step[] {
  const all: Step[] = [];
  const full = (picture: Deal[], at: string, extra: Record<string, unknown> = {}) =>
    all.push({
      body: {
        pipelines: PIPELINES,
        owners: OWNERS,
        deals: [{ results: picture }],
        snapshot_at: at,
        ...extra,
      },
      picture,
    });
  const incremental = (carried: Deal[], at: string) => {
    const picture = apply(all.at(-1)!.picture, carried);
    all.push({
      body: { mode: 'incremental', deals: [{ results: carried }], snapshot_at: at },
      picture,
    });
  };
  let picture = messyDeals();
  full(picture, '2026-01-05T00:00:00Z');
  picture = all.at(-1)!.picture;
  incremental(
    [
      changed(picture, 'd1', { dealstage: 'decisionmakerboughtin', amount: null }),
      changed(picture, 'd13', { hubspot_owner_id: '101' }),
      changed(picture, 'd20', {
        dealname: 'Deal d20',
        createdate: '2025-11-02T00:00:00Z',
        amount: '640',
        pipeline: 'default',
        dealstage: 'appointmentscheduled',
        hubspot_owner_id: '104',
      }),
      { id: 'd4', archived: true, properties: { hs_object_id: 'd4' } },
    ],
    '2026-01-06T00:00:00Z',
  );
  picture = all.at(-1)!.picture;
  incremental(
    [
      changed(picture, 'd1', { dealstage: 'qualifiedtobuy', amount: '3000' }),
      changed(picture, 'd20', { dealstage: 'closedwon', closedate: '2026-01-06T12:00:00Z' }),
      changed(picture, 'd13', { dealstage: 'r-lost', closedate: '2026-01-06T15:00:00Z' }),
    ],
    '2026-01-07T00:00:00Z',
  );
  // A full import without d11: it leaves; d13 goes back to its first owner.
  picture = all
    .at(-1)!
    .picture.filter((d) => d.id !== 'd11')
    .map((d) => (d.id === 'd13' ? changed([d], 'd13', { hubspot_owner_id: '102' }) : d));
  full(picture, '2026-01-08T00:00:00Z');
  // A backfilled full import: past quarter ends are reconstructed from the deals' dates.
  picture = all
    .at(-1)!
    .picture.map((d) => (d.id === 'd10' ? changed([d], 'd10', { amount: '410' }) : d));
  full(picture, '2026-01-09T00:00:00Z', { backfill: true });
  picture = all.at(-1)!.picture;
  incremental(
    [
      changed(picture, 'd1', { dealstage: 'decisionmakerboughtin' }),
      changed(picture, 'd5', { dealstage: 'r-open', closedate: null }),
      changed(picture, 'd21', {
        dealname: 'Deal d21',
        createdate: '2026-01-09T00:00:00Z',
        amount: '90',
        pipeline: 'renewals',
        dealstage: 'r-nego',
        hubspot_owner_id: '103',
      }),
      { id: 'd2', archived: true, properties: { hs_object_id: 'd2' } },
    ],
    '2026-01-10T00:00:00Z',
  );
  picture = all.at(-1)!.picture;
  incremental(
    [changed(picture, 'd1', { dealstage: 'qualifiedtobuy', amount: '' })],
    '2026-01-11T00:00:00Z',
  );
  return all;
}

/** The members and teams both databases start with, so member and team ids are the same in both. */
async function createPeople(): Promise<void> {
  await TeamModel.create([
    { _id: 't-east', name: 'East' },
    { _id: 't-west', name: 'West' },
  ]);
  const member = (id: string, email: string, teamId: string) => ({
    _id: id,
    firstname: id,
    lastname: 'Imported',
    email,
    emailLower: email.toLowerCase(),
    role: Role.MEMBER,
    teamId,
  });
  await MemberModel.create([
    member('m-ada', 'ada@example.com', 't-east'),
    member('m-grace', 'Grace.Hopper@Example.com', 't-east'),
    member('m-alan', 'alan@example.com', 't-west'),
    member('m-linus', 'LINUS@EXAMPLE.COM', 't-west'),
  ]);
}

/** The time series of every metric of the complete pipelines, over the whole history. */
async function seriesOf(gateway: TestGateway): Promise<unknown> {
  const answers: Record<string, unknown> = {};
  for (const pipelineId of ['default', 'renewals', 'default.member.m-ada', 'default.team.t-west']) {
    for (const metric of ['open_opportunities', 'pipeline_value', 'win_rate']) {
      const series = await gateway.request('GET', '/pipelines/timeseries', {
        query: { pipeline_id: pipelineId, metric_name: metric, duration: 104 },
      });
      answers[`${pipelineId} ${metric}`] = { status: series.status, body: series.body };
    }
  }
  return answers;
}

/** Runs `work` on a gateway over a fresh database that has the members and teams of createPeople. */
async function onFreshGateway<T>(work: (gateway: TestGateway) => Promise<T>): Promise<T> {
  // Thousands of reads in a minute: no rate limit.
  const gateway = await startGateway({ env: { RATE_LIMIT: '0' } });
  try {
    await createPeople();
    return await work(gateway);
  } finally {
    await gateway.stop();
  }
}

async function importOk(gateway: TestGateway, body: Record<string, unknown>): Promise<void> {
  const response = await gateway.request('POST', '/crm/imports', { body });
  expect(response.status).toBe(200);
  expect(response.body.mode).toBe(body.mode ?? 'full');
}

/** The full import of a step's whole picture. */
const wholePicture = (step: Step) => ({
  pipelines: PIPELINES,
  owners: OWNERS,
  deals: [{ results: step.picture }],
  snapshot_at: step.body.snapshot_at,
  backfill: step.body.backfill,
});

/** Every read of every committed snapshot, by the moment it represents. */
async function readAll(gateway: TestGateway): Promise<Map<string, unknown>> {
  const snapshots = await SnapshotModel.find({ status: 'committed' }, { snapshotAt: 1 })
    .sort({ snapshotAt: 1 })
    .lean();
  const reads = new Map<string, unknown>();
  for (const s of snapshots)
    reads.set(s.snapshotAt.toISOString(), await readsOf(gateway, s._id as string));
  return reads;
}

describe('deal history as versions', () => {
  it('answers every read of every snapshot as a full import of its whole picture into a fresh database does', async () => {
    const sequence = await onFreshGateway(async (gateway) => {
      for (const step of steps()) await importOk(gateway, step.body);
      return {
        reads: await readAll(gateway),
        series: await seriesOf(gateway),
        versions: await OpportunityModel.countDocuments(),
      };
    });
    // The expectation: each whole picture alone in a database of its own, stored whole.
    const expected = new Map<string, unknown>();
    for (const step of steps()) {
      for (const [at, reads] of await onFreshGateway(
        async (gateway) => (await importOk(gateway, wholePicture(step)), readAll(gateway)),
      )) {
        expected.set(at, reads);
      }
    }
    expect([...sequence.reads.keys()]).toEqual([...expected.keys()].sort());
    expect(sequence.reads.size).toBeGreaterThan(steps().length);
    for (const [at, reads] of sequence.reads)
      expect({ at, reads }).toEqual({ at, reads: expected.get(at) });
    // Versions only for what changed: far fewer than one document per deal and snapshot.
    expect(sequence.versions).toBeLessThan((12 * sequence.reads.size) / 2);

    // Time series span snapshots: the same pictures imported in turn as full imports into one database.
    const series = await onFreshGateway(async (gateway) => {
      for (const step of steps()) await importOk(gateway, wholePicture(step));
      return seriesOf(gateway);
    });
    expect(sequence.series).toEqual(series);
  }, 180_000);
});
