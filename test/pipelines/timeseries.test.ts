import { setCurrency, setPeriod } from '../../src/services/settings.service';
import { getTimeseries } from '../../src/services/timeseries.service';
import { CrmFixture, MAIN_DEALS, MAIN_FIXTURE, OWNERS, SALES } from './fixtures/crm-fixture';
import { ADMIN, startDatabase, TestDatabase } from './support/database';
import { requestContext } from './support/context';
import { expectedMetrics, Window } from './support/expected';
import { ImportedScenario, importScenario, setTargets } from './support/scenario';

// Later in Q2 two deals are gone: the last snapshot of a period is the one that counts.
const LATER: CrmFixture = {
  ...MAIN_FIXTURE,
  deals: MAIN_DEALS.filter((d) => d.id !== '1001' && d.id !== '3001'),
};

// Around the turn of the year, for the week rule: w51 = 17–23 Dec, w52 = 24–31 Dec 2026.
const deal = (id: string, stage: string, amount: string, closedate: string) => ({
  id,
  pipeline: 'sales',
  stage,
  amount,
  owner: '101',
  createdate: '2026-12-01T00:00:00Z',
  closedate,
});
const DECEMBER: CrmFixture = {
  definitions: [SALES],
  owners: [OWNERS[0]],
  deals: [
    deal('x1', 'won', '500', '2026-12-28T00:00:00Z'),
    deal('x2', 'lost', '90', '2026-12-31T20:00:00Z'),
    deal('x3', 'won', '800', '2026-12-20T00:00:00Z'),
    deal('x4', 'qualified', '100', '2027-01-02T00:00:00Z'),
    deal('x5', 'lost', '70', '2026-12-18T00:00:00Z'),
    deal('x6', 'won', '300', '2026-12-23T23:00:00Z'),
  ],
};

const Q1: Window = { start: '2026-01-01', end: '2026-03-31' };
const Q2: Window = { start: '2026-04-01', end: '2026-06-30' };

let db: TestDatabase;
let main: ImportedScenario;

beforeAll(async () => {
  db = await startDatabase();
  main = await importScenario(MAIN_FIXTURE, '2026-02-10T09:00:00Z');
  await importScenario(MAIN_FIXTURE, '2026-05-20T12:00:00Z');
  await importScenario(LATER, '2026-06-20T12:00:00Z');
  await importScenario(DECEMBER, '2026-12-23T10:00:00Z');
  await importScenario(DECEMBER, '2026-12-31T18:00:00Z');
});
afterAll(async () => db.stop());

const series = (pipelineId: string, metricName: string, duration: number, now: string) =>
  getTimeseries(requestContext(), { pipelineId, metricName, duration, now: new Date(now) });

describe('metric time series', () => {
  it('refuses to build a series while the period is not set', async () => {
    await expect(
      series('sales', 'open_opportunities', 4, '2026-08-15T00:00:00Z'),
    ).rejects.toMatchObject({
      status: 409,
      message: 'Cannot build a time series: the period is not set (POST /settings/periods)',
    });
  });

  it('gives one point per quarter, the last snapshot of each, null where there is none', async () => {
    await setPeriod(requestContext(ADMIN), 'quarterly');
    const answer = await series('sales', 'open_opportunities', 4, '2026-08-15T00:00:00Z');
    expect(answer).toMatchObject({ pipelineId: 'sales', unit: 'count', period: 'quarterly' });
    const all = { definitionId: 'sales', owners: null };
    expect(answer.points).toEqual([
      { period: 'Q4', year: 2025, start: '2025-10-01', end: '2025-12-31', value: null },
      {
        period: 'Q1',
        year: 2026,
        start: '2026-01-01',
        end: '2026-03-31',
        value: expectedMetrics(MAIN_FIXTURE, all, Q1).open_opportunities,
      },
      // the 20 June snapshot (LATER), not the 20 May one
      {
        period: 'Q2',
        year: 2026,
        start: '2026-04-01',
        end: '2026-06-30',
        value: expectedMetrics(LATER, all, Q2).open_opportunities,
      },
      { period: 'Q3', year: 2026, start: '2026-07-01', end: '2026-09-30', value: null },
    ]);
    expect(answer.points[2].value).toBe(
      expectedMetrics(MAIN_FIXTURE, all, Q2).open_opportunities - 2,
    );

    // each point is evaluated for its own period, with that period's targets
    await setCurrency(requestContext(ADMIN), 'EUR');
    const ada = { definitionId: 'sales', owners: ['101'] };
    const targets = [10000, 20000, 30000, 40000];
    await setTargets(main, 2026, { '101': targets });
    const quota = await series(
      `sales.member.${main.memberOf.get('101')}`,
      'quota_attainment',
      4,
      '2026-08-15T00:00:00Z',
    );
    expect(quota.points.map((p) => p.value)).toEqual([
      null,
      expectedMetrics(MAIN_FIXTURE, ada, Q1, targets[0]).quota_attainment,
      expectedMetrics(LATER, ada, Q2, targets[1]).quota_attainment,
      null,
    ]);
    expect(quota.points[1].value).toBe(90); // 9000 won on 31 March / 10000
    const winRate = await series('sales', 'win_rate', 2, '2026-06-01T00:00:00Z');
    expect(winRate.points.map((p) => p.value)).toEqual([
      expectedMetrics(MAIN_FIXTURE, all, Q1).win_rate,
      expectedMetrics(LATER, all, Q2).win_rate,
    ]);
  });

  it('follows the period when it changes to months', async () => {
    await setPeriod(requestContext(ADMIN), 'monthly', true);
    const answer = await series('sales', 'pipeline_value', 3, '2026-06-25T00:00:00Z');
    expect(answer).toMatchObject({ unit: 'EUR', period: 'monthly' });
    const all = { definitionId: 'sales', owners: null };
    expect(answer.points).toEqual([
      { period: 'm4', year: 2026, start: '2026-04-01', end: '2026-04-30', value: null },
      {
        period: 'm5',
        year: 2026,
        start: '2026-05-01',
        end: '2026-05-31',
        value: expectedMetrics(MAIN_FIXTURE, all, Q2).pipeline_value,
      },
      {
        period: 'm6',
        year: 2026,
        start: '2026-06-01',
        end: '2026-06-30',
        value: expectedMetrics(LATER, all, Q2).pipeline_value,
      },
    ]);
  });

  it('runs week 52 to 31 December and crosses into the next year', async () => {
    await setPeriod(requestContext(ADMIN), 'weekly', true);
    const answer = await series('sales', 'win_rate', 3, '2027-01-03T00:00:00Z');
    const ada = { definitionId: 'sales', owners: null };
    expect(answer.points).toEqual([
      {
        period: 'w51',
        year: 2026,
        start: '2026-12-17',
        end: '2026-12-23',
        value: expectedMetrics(DECEMBER, ada, { start: '2026-12-17', end: '2026-12-23' }).win_rate,
      },
      {
        period: 'w52',
        year: 2026,
        start: '2026-12-24',
        end: '2026-12-31',
        value: expectedMetrics(DECEMBER, ada, { start: '2026-12-24', end: '2026-12-31' }).win_rate,
      },
      { period: 'w1', year: 2027, start: '2027-01-01', end: '2027-01-07', value: null },
    ]);
    // x3 and x6 won, x5 lost in w51; x1 won and x2 lost in w52 (its 31 December 20:00 close included)
    expect(answer.points.map((p) => p.value)).toEqual([66.67, 50, null]);
  });

  it('rejects a bad duration or metric, and an unknown pipeline', async () => {
    await expect(series('sales', 'win_rate', 0, '2026-06-01T00:00:00Z')).rejects.toMatchObject({
      status: 400,
      message: 'Invalid duration: must be an integer from 1 to 104, got 0',
    });
    await expect(series('sales', 'win_rate', 105, '2026-06-01T00:00:00Z')).rejects.toMatchObject({
      status: 400,
    });
    await expect(series('sales', 'revenue', 4, '2026-06-01T00:00:00Z')).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('Unknown metric "revenue"; allowed: pipeline_value,'),
    });
    await expect(series('nope', 'win_rate', 4, '2026-06-01T00:00:00Z')).rejects.toMatchObject({
      status: 404,
      message: 'Pipeline nope not found',
    });
    const long = await series('sales', 'open_opportunities', 104, '2027-01-03T00:00:00Z');
    expect(long.points).toHaveLength(104);
    expect(long.points[0]).toMatchObject({ period: 'w2', year: 2025 });
  });
});
