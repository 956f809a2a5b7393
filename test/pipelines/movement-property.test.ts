// Movement and slipped deals against random histories of full and incremental imports: every
// figure is computed again here from the HubSpot documents sent, by the contract's rules, without
// the gateway's code, and the identity opening + Σ(+) − Σ(−) = closing is checked on every answer.
import fc from 'fast-check';
import { CrmOwnerLinkModel } from '../../src/models/crm-owner-link.model';
import { MemberModel } from '../../src/models/member.model';
import { startGateway, type TestGateway } from '../helpers/gateway';

const DAY = 86_400_000;

const PIPELINES = [
  {
    id: 'p1',
    stages: [
      { id: 's1', isClosed: false, probability: '0.2' },
      { id: 's2', isClosed: false, probability: '0.5' },
      { id: 's3', isClosed: false, probability: '0.8' },
      { id: 'won1', isClosed: true, probability: '1.0' },
      { id: 'lost1', isClosed: true, probability: '0.0' },
    ],
  },
  {
    id: 'p2',
    stages: [
      { id: 't1', isClosed: false, probability: '0.3' },
      { id: 'won2', isClosed: true, probability: '1.0' },
      { id: 'lost2', isClosed: true, probability: '0.0' },
    ],
  },
];
const OWNERS = [
  { id: '901', team: '71' },
  { id: '902', team: '71' },
  { id: '903', team: '72' },
];
const DEAL_IDS = ['d1', 'd2', 'd3', 'd4', 'd5', 'd6', 'd7', 'd8'];
const CLOSE_DATES = [
  null,
  '2026-03-15T12:00:00.000Z',
  '2026-04-01T00:00:00.000Z',
  '2026-05-20T09:30:00.000Z',
  '2026-06-30T23:00:00.000Z',
  '2026-07-01T00:00:00.000Z',
  '2026-08-10T00:00:00.000Z',
];
const AMOUNTS = [null, '', '0', '100', '250.5', '1000', '1999.999', '0.004', '-50'];
const WINDOWS = ['all', '2026-04-01..2026-06-30'];

interface DealDoc {
  pipeline: string;
  stage: string;
  amount: string | null;
  closedate: string | null;
  owner: string | null;
}

type Step =
  | { mode: 'full'; deals: Map<string, DealDoc> }
  | {
      mode: 'incremental';
      changed: Map<string, DealDoc>;
      archived: string[];
    };

const dealDoc: fc.Arbitrary<DealDoc> = fc
  .record({
    pipeline: fc.constantFrom(0, 0, 0, 1),
    stage: fc.nat(4),
    amount: fc.constantFrom(...AMOUNTS),
    closedate: fc.constantFrom(...CLOSE_DATES),
    owner: fc.constantFrom(null, ...OWNERS.map((o) => o.id)),
  })
  .map((d) => {
    const pipeline = PIPELINES[d.pipeline];
    return {
      pipeline: pipeline.id,
      stage: pipeline.stages[d.stage % pipeline.stages.length].id,
      amount: d.amount,
      closedate: d.closedate,
      owner: d.owner,
    };
  });

const dealSet = fc.dictionary(fc.constantFrom(...DEAL_IDS), dealDoc, { maxKeys: DEAL_IDS.length });

const step: fc.Arbitrary<Step> = fc.oneof(
  dealSet.map((deals): Step => ({ mode: 'full', deals: new Map(Object.entries(deals)) })),
  fc
    .record({
      changed: dealSet,
      archived: fc.subarray(DEAL_IDS, { maxLength: 3 }),
    })
    .map(({ changed, archived }): Step => ({
      mode: 'incremental',
      changed: new Map(Object.entries(changed)),
      archived: archived.filter((id) => !(id in changed)),
    })),
);

const firstStep: fc.Arbitrary<Step> = dealSet.map((deals): Step => ({
  mode: 'full',
  deals: new Map(Object.entries(deals)),
}));

/** What the CRM holds after each import: the deals by id, as HubSpot sent them. */
function crmStates(steps: Step[]): Map<string, DealDoc>[] {
  const states: Map<string, DealDoc>[] = [];
  let current = new Map<string, DealDoc>();
  for (const s of steps) {
    if (s.mode === 'full') current = new Map(s.deals);
    else {
      current = new Map(current);
      for (const [id, doc] of s.changed) current.set(id, doc);
      for (const id of s.archived) current.delete(id);
    }
    states.push(current);
  }
  return states;
}

function body(s: Step, snapshotAt: string) {
  const deals = (entries: Array<[string, DealDoc | null]>) => ({
    results: entries.map(([id, doc]) =>
      doc === null
        ? { id, archived: true, properties: {} }
        : {
            id,
            properties: {
              pipeline: doc.pipeline,
              dealstage: doc.stage,
              amount: doc.amount,
              closedate: doc.closedate,
              hubspot_owner_id: doc.owner,
              dealname: `Deal ${id}`,
              createdate: '2025-01-01T00:00:00.000Z',
            },
          },
    ),
  });
  return {
    mode: s.mode,
    force: true,
    snapshot_at: snapshotAt,
    pipelines: {
      results: PIPELINES.map((p, i) => ({
        id: p.id,
        label: p.id,
        displayOrder: i,
        stages: p.stages.map((stage, order) => ({
          id: stage.id,
          label: stage.id,
          displayOrder: order,
          metadata: { isClosed: String(stage.isClosed), probability: stage.probability },
        })),
      })),
    },
    owners: {
      results: OWNERS.map((o) => ({
        id: o.id,
        email: `owner${o.id}@movement.example`,
        firstName: 'O',
        lastName: o.id,
        userId: Number(o.id),
        teams: [{ id: o.team, name: `Team ${o.team}`, primary: true }],
      })),
    },
    deals:
      s.mode === 'full'
        ? deals([...s.deals])
        : deals([...s.changed, ...s.archived.map((id): [string, null] => [id, null])]),
  };
}

/** A deal as every reading of the contract sees it, owner resolved. */
interface Truth {
  definitionId: string;
  stageId: string;
  outcome: 'open' | 'won' | 'lost';
  cents: number;
  close: number | null;
  memberId: string | null;
  teamId: string | null;
}

function truthOf(doc: DealDoc, owners: Map<string, { memberId: string; teamId: string }>): Truth {
  const stage = PIPELINES.find((p) => p.id === doc.pipeline)!.stages.find(
    (s) => s.id === doc.stage,
  )!;
  const amount = doc.amount === null || doc.amount === '' ? 0 : Number(doc.amount);
  const owner = doc.owner === null ? undefined : owners.get(doc.owner);
  return {
    definitionId: doc.pipeline,
    stageId: doc.stage,
    outcome: !stage.isClosed ? 'open' : stage.probability === '1.0' ? 'won' : 'lost',
    cents: Math.round(amount * 100),
    close: doc.closedate === null ? null : Date.parse(doc.closedate),
    memberId: owner?.memberId ?? null,
    teamId: owner?.teamId ?? null,
  };
}

interface PipelineRef {
  id: string;
  definitionId: string;
  holds: (t: Truth) => boolean;
}

const SIGNS: Record<string, 1 | -1 | 0> = {
  won: -1,
  lost: -1,
  removed: -1,
  moved_out: -1,
  pushed_out: -1,
  created: 1,
  moved_in: 1,
  pulled_in: 1,
  increased: 1,
  decreased: -1,
  unchanged: 0,
};

/** The contract's table, rule by rule, over the deals of two CRM states. */
function expectedMovement(
  before: Map<string, Truth>,
  after: Map<string, Truth>,
  pipeline: PipelineRef,
  window: string,
) {
  const [start, end] =
    window === 'all' ? [null, null] : window.split('..').map((d) => Date.parse(`${d}T00:00:00Z`));
  const inWindow = (t: Truth) =>
    start === null || (t.close !== null && t.close >= start && t.close < end! + DAY);
  const inDefinition = (t: Truth | undefined) =>
    t !== undefined && t.definitionId === pipeline.definitionId;
  const inPipeline = (t: Truth | undefined) => inDefinition(t) && pipeline.holds(t!);
  const open = (t: Truth | undefined) => inPipeline(t) && t!.outcome === 'open' && inWindow(t!);
  const buckets = new Map<string, { count: number; cents: number; deals: Map<string, number> }>(
    Object.keys(SIGNS).map((k) => [k, { count: 0, cents: 0, deals: new Map() }]),
  );
  const opening = { count: 0, cents: 0 };
  const closing = { count: 0, cents: 0 };
  const put = (kind: string, id: string, cents: number) => {
    const b = buckets.get(kind)!;
    b.count += 1;
    b.cents += cents;
    b.deals.set(id, cents);
  };
  for (const id of new Set([...before.keys(), ...after.keys()])) {
    const a = before.get(id);
    const b = after.get(id);
    if (open(a)) {
      opening.count += 1;
      opening.cents += a!.cents;
    }
    if (open(b)) {
      closing.count += 1;
      closing.cents += b!.cents;
    }
    if (open(a) && b !== undefined && inDefinition(b) && b.outcome === 'won')
      put('won', id, a!.cents);
    else if (open(a) && b !== undefined && inDefinition(b) && b.outcome === 'lost')
      put('lost', id, a!.cents);
    else if (open(a) && !inDefinition(b)) put('removed', id, a!.cents);
    else if (open(a) && !inPipeline(b)) put('moved_out', id, a!.cents);
    else if (open(a) && !open(b)) put('pushed_out', id, a!.cents);
    else if (open(b) && !inDefinition(a)) put('created', id, b!.cents);
    else if (open(b) && !inPipeline(a)) put('moved_in', id, b!.cents);
    else if (open(b) && !open(a)) put('pulled_in', id, b!.cents);
    else if (open(a) && open(b)) {
      const delta = b!.cents - a!.cents;
      if (delta > 0) put('increased', id, delta);
      else if (delta < 0) put('decreased', id, -delta);
      else put('unchanged', id, 0);
    }
  }
  return { opening, closing, buckets };
}

/** Slipped deals by their definition: close dates along each deal's unbroken run of snapshots. */
function expectedSlipped(
  truths: Map<string, Truth>[],
  i: number,
  j: number,
  pipeline: PipelineRef,
) {
  const day = (ms: number) => Math.floor(ms / DAY);
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString().slice(0, 10));
  const slipped = [];
  for (const [id, now] of truths[j]) {
    if (
      now.definitionId !== pipeline.definitionId ||
      !pipeline.holds(now) ||
      now.outcome !== 'open'
    )
      continue;
    let start = j;
    while (start > 0 && truths[start - 1].has(id)) start -= 1;
    let pushes = 0;
    for (let k = Math.max(i, start) + 1; k <= j; k += 1) {
      const before = truths[k - 1].get(id)!.close;
      const after = truths[k].get(id)!.close;
      if (before !== null && after !== null && after > before) pushes += 1;
    }
    if (pushes === 0) continue;
    const first = truths[Math.max(i, start)].get(id)!.close;
    slipped.push({
      deal_id: id,
      times_pushed: pushes,
      days_pushed: first === null || now.close === null ? null : day(now.close) - day(first),
      close_date_first: iso(first),
      close_date_now: iso(now.close),
    });
  }
  return slipped.sort(
    (a, b) =>
      (b.days_pushed ?? -Infinity) - (a.days_pushed ?? -Infinity) ||
      (a.deal_id < b.deal_id ? -1 : 1),
  );
}

let gw: TestGateway;
let clock = Date.parse('2025-06-01T00:00:00Z');

beforeAll(async () => {
  gw = await startGateway({ env: { RATE_LIMIT: '0', SNAPSHOT_RETENTION_DAYS: '36500' } });
});
afterAll(async () => gw?.stop());

async function ownersByHubSpotId(): Promise<Map<string, { memberId: string; teamId: string }>> {
  const links = await CrmOwnerLinkModel.find({}).lean();
  const members = await MemberModel.find({}, { teamId: 1 }).lean();
  const teamOf = new Map(members.map((m) => [m._id as string, m.teamId as string]));
  return new Map(
    links.map((l) => [l._id as string, { memberId: l.memberId, teamId: teamOf.get(l.memberId)! }]),
  );
}

async function allDeals(query: Record<string, string>, bucket: string): Promise<Map<string, any>> {
  const deals = new Map<string, any>();
  let cursor: string | null = null;
  do {
    const page: { status: number; body: any } = await gw.request(
      'GET',
      '/pipelines/movement/deals',
      {
        query: { ...query, bucket, limit: 3, ...(cursor ? { cursor } : {}) },
      },
    );
    expect(page.status).toBe(200);
    for (const deal of page.body.deals) deals.set(deal.deal_id, deal);
    cursor = page.body.next_cursor;
  } while (cursor !== null);
  return deals;
}

it('places every deal in one bucket by the contract, opening + Σ(+) − Σ(−) = closing, and finds the slipped deals, for every pipeline and pair of snapshots', async () => {
  await fc.assert(
    // Each run starts with a full import: it owes nothing to the runs before it.
    fc.asyncProperty(firstStep, fc.array(step, { maxLength: 3 }), async (first, rest) => {
      const steps = [first, ...rest];
      const snapshots: { id: string; at: number }[] = [];
      for (const s of steps) {
        clock += DAY;
        const answer = await gw.request('POST', '/crm/imports', {
          body: body(s, new Date(clock).toISOString()),
        });
        expect(answer.status).toBe(200);
        snapshots.push({ id: answer.body.snapshot_id, at: clock });
      }
      const owners = await ownersByHubSpotId();
      // A deal with a negative amount is skipped by the import: in no snapshot.
      const counts = (doc: DealDoc) => !(Number(doc.amount) < 0);
      const truths = crmStates(steps).map(
        (crm) =>
          new Map(
            [...crm]
              .filter(([, doc]) => counts(doc))
              .map(([id, doc]) => [id, truthOf(doc, owners)]),
          ),
      );
      const pipelines: PipelineRef[] = [];
      for (const p of PIPELINES) {
        pipelines.push({ id: p.id, definitionId: p.id, holds: () => true });
        for (const team of new Set(OWNERS.map((o) => owners.get(o.id)!.teamId)))
          pipelines.push({
            id: `${p.id}.team.${team}`,
            definitionId: p.id,
            holds: (t) => t.teamId === team,
          });
        for (const { memberId } of owners.values())
          pipelines.push({
            id: `${p.id}.member.${memberId}`,
            definitionId: p.id,
            holds: (t) => t.memberId === memberId,
          });
      }
      for (let i = 0; i < snapshots.length; i += 1) {
        for (let j = i; j < snapshots.length; j += 1) {
          for (const pipeline of pipelines) {
            // A complete pipeline is in every snapshot of its definition; a sub-pipeline while it has deals.
            const held = (k: number) =>
              pipeline.id === pipeline.definitionId ||
              [...truths[k].values()].some(
                (t) => t.definitionId === pipeline.definitionId && pipeline.holds(t),
              );
            const query = { pipeline_id: pipeline.id, from: snapshots[i].id, to: snapshots[j].id };
            if (!held(i) && !held(j)) {
              const answer = await gw.request('GET', '/pipelines/movement', {
                query: { ...query, close_window: 'all' },
              });
              expect(answer.status).toBe(404);
              continue;
            }
            const slipped = await gw.request('GET', '/pipelines/slipped-deals', {
              query: { ...query, limit: 100 },
            });
            expect(slipped.status).toBe(200);
            expect(
              slipped.body.deals.map((d: Record<string, unknown>) => ({
                deal_id: d.deal_id,
                times_pushed: d.times_pushed,
                days_pushed: d.days_pushed,
                close_date_first: d.close_date_first,
                close_date_now: d.close_date_now,
              })),
            ).toEqual(expectedSlipped(truths, i, j, pipeline));
            for (const window of WINDOWS) {
              const answer = await gw.request('GET', '/pipelines/movement', {
                query: { ...query, close_window: window },
              });
              expect(answer.status).toBe(200);
              const expected = expectedMovement(truths[i], truths[j], pipeline, window);
              const got = answer.body;
              expect(got.opening).toEqual({
                count: expected.opening.count,
                amount: expected.opening.cents / 100,
              });
              expect(got.closing).toEqual({
                count: expected.closing.count,
                amount: expected.closing.cents / 100,
              });
              expect(got.buckets).toEqual(
                Object.keys(SIGNS).map((kind) => ({
                  kind,
                  count: expected.buckets.get(kind)!.count,
                  amount: kind === 'unchanged' ? 0 : expected.buckets.get(kind)!.cents / 100,
                })),
              );
              // The identity, in cents and in counts.
              let cents = Math.round(got.opening.amount * 100);
              let count = got.opening.count;
              for (const b of got.buckets) {
                cents += SIGNS[b.kind] * Math.round(b.amount * 100);
                if (!['increased', 'decreased', 'unchanged'].includes(b.kind))
                  count += SIGNS[b.kind] * b.count;
              }
              expect(cents).toBe(Math.round(got.closing.amount * 100));
              expect(count).toBe(got.closing.count);
              // Each bucket's deals: the expected ones, summing to its amount.
              for (const b of got.buckets.filter((x: { count: number }) => x.count > 0)) {
                const deals = await allDeals({ ...query, close_window: window }, b.kind);
                expect([...deals.keys()].sort()).toEqual(
                  [...expected.buckets.get(b.kind)!.deals.keys()].sort(),
                );
                let sum = 0;
                for (const d of deals.values()) {
                  const from = Math.round((d.amount_from ?? 0) * 100);
                  const to = Math.round((d.amount_to ?? 0) * 100);
                  sum +=
                    SIGNS[b.kind] < 0 && b.kind !== 'decreased'
                      ? from
                      : SIGNS[b.kind] > 0 && b.kind !== 'increased'
                        ? to
                        : Math.abs(to - from);
                }
                expect(sum).toBe(b.kind === 'unchanged' ? 0 : Math.round(b.amount * 100));
              }
            }
          }
        }
      }
    }),
    { numRuns: 10 },
  );
}, 600_000);
