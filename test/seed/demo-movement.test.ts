// The demo company's recent weeks give every analysis something to show: within the quarter,
// deals won, lost, created, pushed out, pulled in and moved between owners, and slipped deals.
import { seedDemo } from '../../src/seed/seed-demo';
import { startGateway, type TestGateway } from '../helpers/gateway';

const NOW = new Date('2026-05-20T12:00:00.000Z');

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway({ env: { RATE_LIMIT: '0' } });
  await seedDemo({ now: NOW, deals: 1500 });
}, 120_000);
afterAll(async () => gw?.stop());

type Bucket = { kind: string; count: number; amount: number };

async function buckets(pipelineId: string, closeWindow?: string): Promise<Record<string, number>> {
  const answer = await gw.request('GET', '/pipelines/movement', {
    query: {
      pipeline_id: pipelineId,
      from: '2026-04-22',
      to: '2026-05-20',
      ...(closeWindow ? { close_window: closeWindow } : {}),
    },
  });
  expect(answer.status).toBe(200);
  return Object.fromEntries(answer.body.buckets.map((b: Bucket) => [b.kind, b.count]));
}

it('moves deals in every way within the last quarter', async () => {
  const quarter = await buckets('default');
  for (const kind of [
    'won',
    'lost',
    'created',
    'pushed_out',
    'pulled_in',
    'increased',
    'decreased',
  ])
    expect({ kind, count: quarter[kind] }).toEqual({ kind, count: expect.any(Number) });
  expect(quarter.won).toBeGreaterThan(0);
  expect(quarter.lost).toBeGreaterThan(0);
  expect(quarter.created).toBeGreaterThan(0);
  expect(quarter.pushed_out).toBeGreaterThan(0);
  expect(quarter.pulled_in).toBeGreaterThan(0);
  expect(quarter.increased + quarter.decreased).toBeGreaterThan(0);

  const pipelines = await gw.request('GET', '/pipelines');
  const members = pipelines.body.pipeline_definitions[0].pipelines
    .map((p: { id: string }) => p.id)
    .filter((id: string) => id.includes('.member.'));
  let movedIn = 0;
  let movedOut = 0;
  for (const id of members) {
    const member = await buckets(id, 'all');
    movedIn += member.moved_in;
    movedOut += member.moved_out;
  }
  expect(movedIn).toBeGreaterThan(0);
  expect(movedOut).toBeGreaterThan(0);

  const slipped = await gw.request('GET', '/pipelines/slipped-deals', {
    query: { pipeline_id: 'default', from: '2026-04-22', to: '2026-05-20' },
  });
  expect(slipped.status).toBe(200);
  expect(slipped.body.count).toBeGreaterThan(0);

  const stages = await gw.request('GET', '/pipelines/stage-analytics', {
    query: { pipeline_id: 'default', from: '2026-04-01', to: '2026-05-20' },
  });
  expect(stages.status).toBe(200);
  expect(stages.body.stages[0].entered).toBeGreaterThan(0);
  expect(stages.body.stages[0].median_days_in_stage).not.toBeNull();
});
