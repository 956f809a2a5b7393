// Stage analytics against deals with known stage entry times: HubSpot's hs_v2_date_entered_* on
// some, the older hs_date_entered_* on one, none on another (whose entries are the snapshots that
// first show it in a stage); and the analytics routes' errors, roles and GraphQL fields.
import { startGateway, type TestGateway } from '../helpers/gateway';
import { CrmOwnerLinkModel } from '../../src/models/crm-owner-link.model';

const STAGES = [
  { id: 'q', isClosed: false, probability: '0.2' },
  { id: 'p', isClosed: false, probability: '0.5' },
  { id: 'n', isClosed: false, probability: '0.8' },
  { id: 'won', isClosed: true, probability: '1.0' },
  { id: 'lost', isClosed: true, probability: '0.0' },
];

type Props = Record<string, string | null>;

function deal(id: string, stage: string, entered: Props, extra: Props = {}) {
  return {
    id,
    properties: {
      pipeline: 'sales',
      dealstage: stage,
      dealname: `Deal ${id}`,
      amount: '1000',
      hubspot_owner_id: '501',
      createdate: '2026-01-15T00:00:00.000Z',
      closedate: '2026-04-15T00:00:00.000Z',
      ...entered,
      ...extra,
    },
  };
}

const v2 = (entries: Record<string, string>) =>
  Object.fromEntries(
    Object.entries(entries).map(([stage, day]) => [
      `hs_v2_date_entered_${stage}`,
      `${day}T00:00:00.000Z`,
    ]),
  );

function body(mode: 'full' | 'incremental', snapshotAt: string, deals: unknown[]) {
  return {
    mode,
    force: true,
    snapshot_at: snapshotAt,
    pipelines: {
      results: [
        {
          id: 'sales',
          label: 'Sales',
          displayOrder: 0,
          stages: STAGES.map((s, order) => ({
            id: s.id,
            label: s.id.toUpperCase(),
            displayOrder: order,
            metadata: { isClosed: String(s.isClosed), probability: s.probability },
          })),
        },
      ],
    },
    owners: {
      results: [
        {
          id: '501',
          email: 'stage.owner@analytics.example',
          firstName: 'Stage',
          lastName: 'Owner',
          userId: 501,
          teams: [{ id: '81', name: 'Team 81', primary: true }],
        },
      ],
    },
    deals: { results: deals },
  };
}

let gw: TestGateway;
const snapshots: string[] = [];

beforeAll(async () => {
  gw = await startGateway({ env: { RATE_LIMIT: '0', SNAPSHOT_RETENTION_DAYS: '36500' } });
  const imports = [
    body('full', '2026-03-10T00:00:00Z', [
      deal('A', 'p', v2({ q: '2026-03-02', p: '2026-03-05' })),
      deal('B', 'q', v2({ q: '2026-03-03' })),
      deal('C', 'q', {}),
      deal('D', 'lost', {
        hs_date_entered_q: '2026-03-04T00:00:00.000Z',
        hs_date_entered_lost: '2026-03-08T00:00:00.000Z',
      }),
      deal('E', 'p', v2({ q: '2026-02-01', p: '2026-03-06' })),
    ]),
    body('incremental', '2026-03-20T00:00:00Z', [
      deal('A', 'won', v2({ q: '2026-03-02', p: '2026-03-05', won: '2026-03-15' })),
      deal('B', 'p', v2({ q: '2026-03-03', p: '2026-03-13' }), {
        closedate: '2026-05-20T00:00:00.000Z',
      }),
      deal('C', 'n', {}),
      deal('E', 'q', v2({ q: '2026-03-18', p: '2026-03-06' })),
    ]),
    body('incremental', '2026-03-25T00:00:00Z', [
      deal('B', 'p', v2({ q: '2026-03-03', p: '2026-03-13' }), {
        closedate: '2026-06-02T00:00:00.000Z',
      }),
      deal('C', 'lost', {}),
    ]),
  ];
  for (const imported of imports) {
    const answer = await gw.request('POST', '/crm/imports', { body: imported });
    expect(answer.status).toBe(200);
    snapshots.push(answer.body.snapshot_id);
  }
});
afterAll(async () => gw?.stop());

const figures = (
  stage_id: string,
  counts: [number, number, number, number, number],
  rates: [number | null, number | null],
  days: [number | null, number | null],
) => ({
  stage_id,
  label: stage_id.toUpperCase(),
  entered: counts[0],
  advanced: counts[1],
  won: counts[2],
  lost: counts[3],
  still_open: counts[4],
  conversion_rate: rates[0],
  win_rate_from_stage: rates[1],
  median_days_in_stage: days[0],
  average_days_in_stage: days[1],
});

describe('GET /pipelines/stage-analytics', () => {
  it('counts each stage from the deals that entered it, with CRM entry times where sent and snapshot times otherwise', async () => {
    const answer = await gw.request('GET', '/pipelines/stage-analytics', {
      query: { pipeline_id: 'sales', from: '2026-03-01', to: '2026-03-31' },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.snapshot).toEqual({
      snapshot_id: snapshots[2],
      snapshot_at: '2026-03-25 00:00:00',
    });
    expect(answer.body.stages).toEqual([
      // A 3-02, B 3-03, D 3-04 (hs_date_entered_q), C 3-10 (first snapshot), E 3-18 (re-entry).
      figures('q', [5, 3, 1, 2, 2], [60, 33.33], [7, 6.75]),
      // A 3-05, E 3-06 (back to q on 3-18), B 3-13 (still there).
      figures('p', [3, 1, 1, 0, 2], [100, 100], [11, 11]),
      // C 3-20 (the snapshot that shows it there), lost on 3-25.
      figures('n', [1, 0, 0, 1, 0], [0, 0], [5, 5]),
      figures('won', [1, 0, 1, 0, 0], [null, 100], [null, null]),
      figures('lost', [2, 0, 0, 2, 0], [0, 0], [null, null]),
    ]);
  });

  it('reads the histories of the latest snapshot by `to`, and only entries in the range', async () => {
    const answer = await gw.request('GET', '/pipelines/stage-analytics', {
      query: { pipeline_id: 'sales', from: '2026-03-06', to: '2026-03-12' },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.snapshot.snapshot_id).toBe(snapshots[0]);
    // In the snapshot of 3-10: C entered q on 3-10, E p on 3-06 and D lost on 3-08.
    expect(answer.body.stages.map((s: { entered: number }) => s.entered)).toEqual([1, 1, 0, 0, 1]);
  });

  it('refuses dates that are not dates or out of order, and answers 404 before the first snapshot', async () => {
    const bad = await gw.request('GET', '/pipelines/stage-analytics', {
      query: { pipeline_id: 'sales', from: '2026-03-31', to: '2026-03-01' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ stages: [], status: { success: false, statusCode: 400 } });
    const notDate = await gw.request('GET', '/pipelines/stage-analytics', {
      query: { pipeline_id: 'sales', from: '2026-02-30', to: '2026-03-01' },
    });
    expect(notDate.status).toBe(400);
    const early = await gw.request('GET', '/pipelines/stage-analytics', {
      query: { pipeline_id: 'sales', from: '2026-01-01', to: '2026-01-31' },
    });
    expect(early.status).toBe(404);
    expect(early.body.status.message).toContain(`the earliest is ${snapshots[0]}`);
  });
});

describe('GET /pipelines/movement, /pipelines/slipped-deals', () => {
  it('answers the movement of the month, and the deal whose close date slipped twice', async () => {
    const movement = await gw.request('GET', '/pipelines/movement', {
      query: { pipeline_id: 'sales', from: '2026-03-10', to: '2026-03-25', close_window: 'all' },
    });
    expect(movement.status).toBe(200);
    expect(movement.body).toMatchObject({
      pipeline_id: 'sales',
      currency: null,
      window: null,
      from: { snapshot_id: snapshots[0] },
      to: { snapshot_id: snapshots[2] },
      opening: { count: 4, amount: 4000 },
      closing: { count: 2, amount: 2000 },
    });
    const counts = Object.fromEntries(
      movement.body.buckets.map((b: { kind: string; count: number }) => [b.kind, b.count]),
    );
    expect(counts).toMatchObject({ won: 1, lost: 1, unchanged: 2 });
    const slipped = await gw.request('GET', '/pipelines/slipped-deals', {
      query: { pipeline_id: 'sales', from: '2026-03-10', to: '2026-03-25' },
    });
    expect(slipped.status).toBe(200);
    expect(slipped.body.deals).toEqual([
      {
        deal_id: 'B',
        name: 'Deal B',
        owner_member_id: expect.any(String),
        stage_id: 'p',
        amount: 1000,
        times_pushed: 2,
        days_pushed: 48,
        close_date_first: '2026-04-15',
        close_date_now: '2026-06-02',
      },
    ]);
  });

  it('answers 400 for from after to, 404 naming the earliest snapshot, 409 for the period window before the period is set', async () => {
    const query = { pipeline_id: 'sales', from: '2026-03-25', to: '2026-03-10' };
    const reversed = await gw.request('GET', '/pipelines/movement', { query });
    expect(reversed.status).toBe(400);
    expect(reversed.body).toMatchObject({ buckets: [], status: { statusCode: 400 } });
    const early = await gw.request('GET', '/pipelines/movement', {
      query: { ...query, from: '2026-01-01' },
    });
    expect(early.status).toBe(404);
    expect(early.body.status.message).toBe(
      `No snapshot at or before 2026-01-01 (end of day, UTC): the earliest is ${snapshots[0]}, of 2026-03-10T00:00:00.000Z`,
    );
    const period = await gw.request('GET', '/pipelines/movement', {
      query: { ...query, from: '2026-03-10', to: '2026-03-25' },
    });
    expect(period.status).toBe(409);
    const window = await gw.request('GET', '/pipelines/movement', {
      query: { ...query, from: '2026-03-10', to: '2026-03-25', close_window: '2026-04..2026-05' },
    });
    expect(window.status).toBe(400);
    const bucket = await gw.request('GET', '/pipelines/movement/deals', {
      query: { ...query, from: '2026-03-10', to: '2026-03-25', bucket: 'sideways' },
    });
    expect(bucket.status).toBe(400);
  });

  it('lets a member read, in the configured period by default, and answers GraphQL as REST does', async () => {
    expect(
      (await gw.request('POST', '/settings/periods', { body: { period: 'quarterly' } })).status,
    ).toBe(200);
    const [link] = await CrmOwnerLinkModel.find({ _id: '501' }).lean();
    const token = await gw.tokenFor(link.memberId);
    const query = { pipeline_id: 'sales', from: snapshots[0], to: snapshots[2] };
    const rest = await gw.request('GET', '/pipelines/movement', { query, token });
    expect(rest.status).toBe(200);
    // The period containing 2026-03-25: every close date of the fixture is later.
    expect(rest.body.window).toEqual({ start: '2026-01-01', end: '2026-03-31' });
    const all = await gw.request('GET', '/pipelines/movement', {
      query: { ...query, close_window: 'all' },
      token,
    });
    const graphql = await gw.graphql(
      `query($from: String!, $to: String!) { pipeline(id: "sales") {
        movement(from: $from, to: $to, closeWindow: "all") {
          opening { count amount } closing { count amount }
          buckets { kind count amount deals(first: 10) { totalCount nodes { dealId amountFrom amountTo stageFrom stageTo } } }
        }
        stageAnalytics(from: "2026-03-01", to: "2026-03-31") { stages { stageId entered advanced conversionRate medianDaysInStage } }
        slippedDeals(from: $from, to: $to) { totalCount edges { node { dealId timesPushed daysPushed } } }
      } }`,
      { from: snapshots[0], to: snapshots[2] },
      token,
    );
    expect(graphql).toMatchObject({ status: 200, body: { data: {} } });
    const movement = graphql.body.data.pipeline.movement;
    expect(movement.opening).toEqual(all.body.opening);
    expect(movement.closing).toEqual(all.body.closing);
    expect(
      movement.buckets.map((b: { kind: string; count: number; amount: number }) => ({
        kind: b.kind.toLowerCase(),
        count: b.count,
        amount: b.amount,
      })),
    ).toEqual(all.body.buckets);
    const won = movement.buckets.find((b: { kind: string }) => b.kind === 'WON');
    expect(won.deals.nodes).toEqual([
      { dealId: 'A', amountFrom: 1000, amountTo: 1000, stageFrom: 'p', stageTo: 'won' },
    ]);
    expect(graphql.body.data.pipeline.stageAnalytics.stages[0]).toEqual({
      stageId: 'q',
      entered: 5,
      advanced: 3,
      conversionRate: 60,
      medianDaysInStage: 7,
    });
    expect(graphql.body.data.pipeline.slippedDeals).toEqual({
      totalCount: 1,
      edges: [{ node: { dealId: 'B', timesPushed: 2, daysPushed: 48 } }],
    });
  });

  it('answers the removal 404 for a snapshot an admin removed', async () => {
    expect((await gw.request('DELETE', `/pipelines/snapshots/${snapshots[1]}`)).status).toBe(200);
    const answer = await gw.request('GET', '/pipelines/movement', {
      query: { pipeline_id: 'sales', from: snapshots[1], to: snapshots[2], close_window: 'all' },
    });
    expect(answer.status).toBe(404);
    expect(answer.body.status.message).toContain('was removed by an admin');
  });
});
