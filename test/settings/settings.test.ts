import { SettingsModel } from '../../src/models/settings.model';
import { TargetModel } from '../../src/models/target.model';
import { startGateway, type TestGateway } from '../helpers/gateway';
import { seedMember, seedTeam } from '../members/support/seed';

let gw: TestGateway;
let managerToken: string;
let memberToken: string;
let memberId: string;

beforeAll(async () => {
  gw = await startGateway();
  await seedTeam(gw, 'red');
  managerToken = await gw.tokenFor((await seedMember(gw, 'red', 'manager')).member_id);
  memberId = (await seedMember(gw, 'red', 'member')).member_id;
  memberToken = await gw.tokenFor(memberId);
});

afterAll(async () => {
  await gw?.stop();
});

const fields = (body: { errors?: Array<{ field: string }> }) =>
  (body.errors ?? []).map((e) => e.field);

/** Runs first: nothing is set on a fresh database. */
describe('before anything is set', () => {
  it('answers 404 for currency and period', async () => {
    const currency = await gw.request('GET', '/settings/currencies');
    expect(currency.status).toBe(404);
    expect(currency.body).toMatchObject({ success: false, statusCode: 404 });
    expect(currency.body.message).toMatch(/currency has not been set/);
    const period = await gw.request('GET', '/settings/periods', { token: memberToken });
    expect(period.status).toBe(404);
    expect(period.body.message).toMatch(/period has not been set/);
  });

  it('answers nulls on GraphQL', async () => {
    const res = await gw.graphql(
      '{ settings { currency period periodValues } }',
      undefined,
      memberToken,
    );
    expect(res.body).toEqual({
      data: { settings: { currency: null, period: null, periodValues: null } },
    });
  });

  it('refuses targets while the period or currency is unset (409)', async () => {
    const res = await gw.request('POST', `/teams/members/${memberId}/targets`, {
      body: { targets: [1, 2, 3, 4] },
    });
    expect(res.status).toBe(409);
    expect(res.body.message).toMatch(
      /^Targets cannot be set before the period and currency are set/,
    );
  });
});

describe('currency', () => {
  it('accepts any case, stores upper-case, readable by every role', async () => {
    const set = await gw.request('POST', '/settings/currencies', { body: { currency: 'eur' } });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({
      message: 'Currency set to EUR',
      success: true,
      statusCode: 200,
      currency: 'EUR',
    });
    for (const token of [undefined, managerToken, memberToken]) {
      const read = await gw.request('GET', '/settings/currencies', { token });
      expect(read.body).toEqual({
        message: 'Currency found',
        success: true,
        statusCode: 200,
        currency: 'EUR',
      });
    }
    expect((await SettingsModel.findById('account').lean())?.currency).toBe('EUR');
  });

  it('answers 400 naming currency for an unknown or malformed code, keeping the old one', async () => {
    for (const currency of ['EURO', 'XYZ', 'us', 12, '']) {
      const res = await gw.request('POST', '/settings/currencies', { body: { currency } });
      expect({ currency, status: res.status }).toEqual({ currency, status: 400 });
      expect(fields(res.body)).toEqual(['currency']);
    }
    const missing = await gw.request('POST', '/settings/currencies', { body: {} });
    expect(missing.status).toBe(400);
    expect(fields(missing.body)).toEqual(['currency']);
    expect((await gw.request('GET', '/settings/currencies')).body.currency).toBe('EUR');
  });

  it('is admin only', async () => {
    for (const token of [managerToken, memberToken]) {
      const res = await gw.request('POST', '/settings/currencies', {
        token,
        body: { currency: 'USD' },
      });
      expect(res.status).toBe(403);
    }
    expect((await gw.request('GET', '/settings/currencies')).body.currency).toBe('EUR');
  });
});

describe('period', () => {
  it('sets the period and answers its values', async () => {
    const set = await gw.request('POST', '/settings/periods', { body: { period: 'quarterly' } });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({
      message: 'Period set to quarterly',
      success: true,
      statusCode: 200,
      period: 'quarterly',
      values: ['Q1', 'Q2', 'Q3', 'Q4'],
    });
    const read = await gw.request('GET', '/settings/periods', { token: memberToken });
    expect(read.body).toEqual({
      message: 'Period found',
      success: true,
      statusCode: 200,
      period: 'quarterly',
      values: ['Q1', 'Q2', 'Q3', 'Q4'],
    });
  });

  it('answers 400 for an unknown period and 403 for non-admins, keeping the period', async () => {
    const bad = await gw.request('POST', '/settings/periods', { body: { period: 'yearly' } });
    expect(bad.status).toBe(400);
    expect(fields(bad.body)).toEqual(['period']);
    const badReset = await gw.request('POST', '/settings/periods', {
      body: { period: 'monthly', reset_targets: 'yes' },
    });
    expect(badReset.status).toBe(400);
    expect(fields(badReset.body)).toEqual(['reset_targets']);
    for (const token of [managerToken, memberToken]) {
      expect(
        (await gw.request('POST', '/settings/periods', { token, body: { period: 'monthly' } }))
          .status,
      ).toBe(403);
    }
    expect((await gw.request('GET', '/settings/periods')).body.period).toBe('quarterly');
  });

  describe('while targets exist', () => {
    beforeAll(async () => {
      const res = await gw.request('POST', `/teams/members/${memberId}/targets`, {
        body: { year: 2026, targets: [10, 20, 30, 40] },
      });
      expect(res.status).toBe(200);
    });

    it('treats the same period again as a no-op 200, keeping the targets', async () => {
      const res = await gw.request('POST', '/settings/periods', { body: { period: 'quarterly' } });
      expect(res.status).toBe(200);
      expect(res.body.message).toBe('Period is already quarterly');
      expect(await TargetModel.find({}).lean()).toHaveLength(1);
    });

    it('answers 409 for a change without reset_targets, changing nothing', async () => {
      for (const body of [{ period: 'monthly' }, { period: 'weekly', reset_targets: false }]) {
        const res = await gw.request('POST', '/settings/periods', { body });
        expect(res.status).toBe(409);
        expect(res.body).toMatchObject({ success: false, statusCode: 409 });
        expect(res.body.message).toMatch(/while targets exist; send reset_targets: true/);
      }
      expect((await gw.request('GET', '/settings/periods')).body.period).toBe('quarterly');
      expect(
        (await gw.request('GET', `/teams/members/${memberId}/targets`, { query: { year: 2026 } }))
          .status,
      ).toBe(200);
    });

    it('changes the period and deletes every target with reset_targets: true', async () => {
      const res = await gw.request('POST', '/settings/periods', {
        body: { period: 'monthly', reset_targets: true },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        message: 'Period set to monthly; 1 target set(s) deleted',
        success: true,
        statusCode: 200,
        period: 'monthly',
        values: ['m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8', 'm9', 'm10', 'm11', 'm12'],
      });
      expect(await TargetModel.find({}).lean()).toHaveLength(0);
      expect(
        (await gw.request('GET', `/teams/members/${memberId}/targets`, { query: { year: 2026 } }))
          .status,
      ).toBe(404);
    });
  });

  it('answers 52 week values for weekly', async () => {
    await gw.request('POST', '/settings/periods', { body: { period: 'weekly' } });
    const read = await gw.request('GET', '/settings/periods');
    expect(read.body.values).toHaveLength(52);
    expect(read.body.values[0]).toBe('w1');
    expect(read.body.values[51]).toBe('w52');
  });
});

describe('GraphQL settings', () => {
  it('sets currency and period and reads them back', async () => {
    const currency = await gw.graphql('mutation { setCurrency(currency: "usd") { currency } }');
    expect(currency.body).toEqual({ data: { setCurrency: { currency: 'USD' } } });
    const period = await gw.graphql(
      'mutation { setPeriod(period: QUARTERLY) { period periodValues } }',
    );
    expect(period.body).toEqual({
      data: { setPeriod: { period: 'QUARTERLY', periodValues: ['Q1', 'Q2', 'Q3', 'Q4'] } },
    });
    const read = await gw.graphql(
      '{ settings { currency period periodValues } }',
      undefined,
      managerToken,
    );
    expect(read.body.data.settings).toEqual({
      currency: 'USD',
      period: 'QUARTERLY',
      periodValues: ['Q1', 'Q2', 'Q3', 'Q4'],
    });
  });

  it('answers BAD_USER_INPUT naming currency, FORBIDDEN for non-admins, CONFLICT while targets exist', async () => {
    const bad = await gw.graphql('mutation { setCurrency(currency: "XYZ") { currency } }');
    expect(bad.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(bad.body.errors[0].message).toMatch(/currency: /);
    const forbidden = await gw.graphql(
      'mutation { setPeriod(period: MONTHLY) { period } }',
      undefined,
      managerToken,
    );
    expect(forbidden.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(
      (
        await gw.request('POST', `/teams/members/${memberId}/targets`, {
          body: { targets: [1, 2, 3, 4] },
        })
      ).status,
    ).toBe(200);
    const conflict = await gw.graphql('mutation { setPeriod(period: MONTHLY) { period } }');
    expect(conflict.body.errors[0].extensions.code).toBe('CONFLICT');
    const reset = await gw.graphql(
      'mutation { setPeriod(period: MONTHLY, resetTargets: true) { period } }',
    );
    expect(reset.body).toEqual({ data: { setPeriod: { period: 'MONTHLY' } } });
    expect(await TargetModel.find({}).lean()).toHaveLength(0);
    expect((await gw.request('GET', '/settings/currencies')).body.currency).toBe('USD');
  });
});
