import { TargetModel } from '../../src/models/target.model';
import { startGateway, type TestGateway } from '../helpers/gateway';
import { seedMember, seedSettings, seedTeam, type RestMember } from '../members/support/seed';

let gw: TestGateway;
let redManager: RestMember;
let redManagerToken: string;
let red: RestMember;
let redToken: string;
let redPeer: RestMember;
let blue: RestMember;
let blueToken: string;

const QUARTERS = [120000, 90000.5, 0, 150000];
const path = (memberId: string) => `/teams/members/${memberId}/targets`;
const fields = (body: { errors?: Array<{ field: string }> }) =>
  (body.errors ?? []).map((e) => e.field);
const currentYear = new Date().getUTCFullYear();

beforeAll(async () => {
  gw = await startGateway();
  await seedTeam(gw, 'red');
  await seedTeam(gw, 'blue');
  redManager = await seedMember(gw, 'red', 'manager');
  redManagerToken = await gw.tokenFor(redManager.member_id);
  red = await seedMember(gw, 'red');
  redToken = await gw.tokenFor(red.member_id);
  redPeer = await seedMember(gw, 'red');
  blue = await seedMember(gw, 'blue');
  blueToken = await gw.tokenFor(blue.member_id);
  await seedSettings(gw, 'eur', 'quarterly');
});

afterAll(async () => {
  await gw?.stop();
});

async function stored(memberId: string) {
  return TargetModel.find({ memberId }, { _id: 0, year: 1, amounts: 1, period: 1, currency: 1 })
    .sort({ year: 1 })
    .lean();
}

describe('POST /teams/members/{member_id}/targets', () => {
  it('sets a year of targets and answers them labelled by period', async () => {
    const res = await gw.request('POST', path(red.member_id), {
      body: { year: 2026, targets: QUARTERS },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      message: 'Targets set for 2026',
      success: true,
      statusCode: 200,
      member_id: red.member_id,
      year: 2026,
      period: 'quarterly',
      currency: 'EUR',
      targets: [
        { period: 'Q1', amount: 120000 },
        { period: 'Q2', amount: 90000.5 },
        { period: 'Q3', amount: 0 },
        { period: 'Q4', amount: 150000 },
      ],
    });
  });

  it('defaults to the current UTC year', async () => {
    const res = await gw.request('POST', path(redPeer.member_id), {
      body: { targets: [1, 2, 3, 4] },
    });
    expect(res.status).toBe(200);
    expect(res.body.year).toBe(currentYear);
    expect((await gw.request('GET', path(redPeer.member_id))).body.year).toBe(currentYear);
  });

  it('replaces that year only', async () => {
    await gw.request('POST', path(red.member_id), { body: { year: 2027, targets: [5, 5, 5, 5] } });
    const res = await gw.request('POST', path(red.member_id), {
      body: { year: 2027, targets: [7, 8, 9, 10] },
    });
    expect(res.status).toBe(200);
    expect(await stored(red.member_id)).toEqual([
      { year: 2026, period: 'quarterly', currency: 'EUR', amounts: QUARTERS },
      { year: 2027, period: 'quarterly', currency: 'EUR', amounts: [7, 8, 9, 10] },
    ]);
  });

  it('answers 400 for a wrong length or a bad element, naming the index, changing nothing', async () => {
    const before = await stored(red.member_id);
    const cases: Array<[unknown, string[]]> = [
      [[1, 2, 3], ['targets']],
      [[1, 2, 3, 4, 5], ['targets']],
      [[1, -2, 3, 4], ['targets[1]']],
      [[1, 2, '3', 4], ['targets[2]']],
      [[1, 2, 3, null], ['targets[3]']],
      [
        [-1, 2, 3],
        ['targets', 'targets[0]'],
      ],
      ['1,2,3,4', ['targets']],
      [[], ['targets']],
    ];
    for (const [targets, expected] of cases) {
      const res = await gw.request('POST', path(red.member_id), { body: { year: 2026, targets } });
      expect({ targets, status: res.status }).toEqual({ targets, status: 400 });
      expect(res.body).toMatchObject({ success: false, statusCode: 400 });
      expect(fields(res.body)).toEqual(expected);
    }
    const huge = await gw.request('POST', path(red.member_id), {
      body: '{"year":2026,"targets":[1,2,1e400,4]}',
      headers: { 'content-type': 'application/json' },
    });
    expect(huge.status).toBe(400);
    expect(fields(huge.body)).toEqual(['targets[2]']);
    expect(await stored(red.member_id)).toEqual(before);
  });

  it('answers 400 for a year out of range or not whole, and without targets', async () => {
    for (const year of [1999, 2101, 2026.5, '2026x']) {
      const res = await gw.request('POST', path(red.member_id), {
        body: { year, targets: [1, 2, 3, 4] },
      });
      expect({ year, status: res.status }).toEqual({ year, status: 400 });
      expect(fields(res.body)).toEqual(['year']);
    }
    const missing = await gw.request('POST', path(red.member_id), { body: { year: 2026 } });
    expect(missing.status).toBe(400);
    expect(fields(missing.body)).toEqual(['targets']);
  });

  it('answers 404 for an unknown member', async () => {
    const res = await gw.request('POST', path('00000000-0000-4000-8000-000000000000'), {
      body: { targets: [1, 2, 3, 4] },
    });
    expect(res.status).toBe(404);
    expect(res.body.message).toBe('Member 00000000-0000-4000-8000-000000000000 not found');
  });

  it('lets the manager set their team’s targets, not another team’s; members set none', async () => {
    const ok = await gw.request('POST', path(redPeer.member_id), {
      token: redManagerToken,
      body: { year: 2030, targets: [4, 3, 2, 1] },
    });
    expect(ok.status).toBe(200);
    for (const [token, memberId] of [
      [redManagerToken, blue.member_id],
      [redToken, red.member_id],
      [blueToken, blue.member_id],
    ]) {
      const before = await stored(memberId);
      const res = await gw.request('POST', path(memberId), {
        token,
        body: { year: 2026, targets: [9, 9, 9, 9] },
      });
      expect({ memberId, status: res.status }).toEqual({ memberId, status: 403 });
      expect(await stored(memberId)).toEqual(before);
    }
  });

  it("refuses a manager their own targets and an admin's in their team, on REST and GraphQL, changing nothing", async () => {
    const redAdmin = await seedMember(gw, 'red', 'admin');
    for (const memberId of [redManager.member_id, redAdmin.member_id]) {
      const before = await stored(memberId);
      const rest = await gw.request('POST', path(memberId), {
        token: redManagerToken,
        body: { year: 2026, targets: [9, 9, 9, 9] },
      });
      expect({ memberId, status: rest.status }).toEqual({ memberId, status: 403 });
      expect(rest.body.message).toMatch(
        memberId === redAdmin.member_id
          ? /may not set an admin's targets/
          : /may not set their own targets/,
      );
      const gql = await gw.graphql<any>(
        'mutation($id: ID!) { setMemberTargets(input: { memberId: $id, year: 2026, targets: [9, 9, 9, 9] }) { year } }',
        { id: memberId },
        redManagerToken,
      );
      expect(gql.body.errors[0].extensions.code).toBe('FORBIDDEN');
      expect(await stored(memberId)).toEqual(before);
    }
    // An admin still sets both.
    for (const memberId of [redManager.member_id, redAdmin.member_id]) {
      expect(
        (await gw.request('POST', path(memberId), { body: { year: 2031, targets: [1, 1, 1, 1] } }))
          .status,
      ).toBe(200);
    }
  });

  it('needs 12 amounts once the period is monthly', async () => {
    const member = await seedMember(gw, 'red');
    await gw.request('POST', '/settings/periods', {
      body: { period: 'monthly', reset_targets: true },
    });
    try {
      const four = await gw.request('POST', path(member.member_id), {
        body: { year: 2026, targets: [1, 2, 3, 4] },
      });
      expect(four.status).toBe(400);
      expect(four.body.errors[0].message).toMatch(/expected 12 amounts .*got 4/);
      const twelve = await gw.request('POST', path(member.member_id), {
        body: { year: 2026, targets: Array.from({ length: 12 }, (_, i) => i) },
      });
      expect(twelve.status).toBe(200);
      expect(twelve.body.targets.map((t: { period: string }) => t.period)).toEqual([
        'm1',
        'm2',
        'm3',
        'm4',
        'm5',
        'm6',
        'm7',
        'm8',
        'm9',
        'm10',
        'm11',
        'm12',
      ]);
    } finally {
      await gw.request('POST', '/settings/periods', {
        body: { period: 'quarterly', reset_targets: true },
      });
      // The reset emptied every target set: put back what the read tests below expect.
      await gw.request('POST', path(red.member_id), { body: { year: 2026, targets: QUARTERS } });
    }
  });
});

describe('GET /teams/members/{member_id}/targets', () => {
  it('reads a year back with the same shape as the write', async () => {
    const res = await gw.request('GET', path(red.member_id), { query: { year: 2026 } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      message: 'Targets found for 2026',
      success: true,
      statusCode: 200,
      member_id: red.member_id,
      year: 2026,
      period: 'quarterly',
      currency: 'EUR',
      targets: QUARTERS.map((amount, i) => ({ period: `Q${i + 1}`, amount })),
    });
  });

  it('answers 404 for a year without targets and for an unknown member; 400 for a bad year', async () => {
    const none = await gw.request('GET', path(red.member_id), { query: { year: 2031 } });
    expect(none.status).toBe(404);
    expect(none.body.message).toBe(`No targets set for member ${red.member_id} in 2031`);
    expect((await gw.request('GET', path('nobody'))).status).toBe(404);
    const bad = await gw.request('GET', path(red.member_id), { query: { year: 'last' } });
    expect(bad.status).toBe(400);
    expect(fields(bad.body)).toEqual(['year']);
  });

  it('follows the role table: admin all, manager own team, member own only', async () => {
    const allowed: Array<[string | undefined, string]> = [
      [undefined, red.member_id],
      [redManagerToken, red.member_id],
      [redToken, red.member_id],
    ];
    for (const [token, memberId] of allowed) {
      expect(
        (await gw.request('GET', path(memberId), { token, query: { year: 2026 } })).status,
      ).toBe(200);
    }
    await gw.request('POST', path(blue.member_id), { body: { year: 2026, targets: [1, 1, 1, 1] } });
    const denied: Array<[string, string]> = [
      [redManagerToken, blue.member_id],
      [redToken, redPeer.member_id],
      [blueToken, red.member_id],
    ];
    for (const [token, memberId] of denied) {
      const res = await gw.request('GET', path(memberId), { token, query: { year: 2026 } });
      expect({ memberId, status: res.status }).toEqual({ memberId, status: 403 });
    }
  });
});

describe('GraphQL targets', () => {
  const SET = `mutation Set($input: SetMemberTargetsInput!) {
    setMemberTargets(input: $input) { memberId year period currency targets { period amount } }
  }`;

  it('sets and reads targets, also as a Member field', async () => {
    const set = await gw.graphql(SET, {
      input: { memberId: blue.member_id, year: 2028, targets: [1, 2, 3, 4.5] },
    });
    expect(set.body).toEqual({
      data: {
        setMemberTargets: {
          memberId: blue.member_id,
          year: 2028,
          period: 'QUARTERLY',
          currency: 'EUR',
          targets: [
            { period: 'Q1', amount: 1 },
            { period: 'Q2', amount: 2 },
            { period: 'Q3', amount: 3 },
            { period: 'Q4', amount: 4.5 },
          ],
        },
      },
    });
    const read = await gw.graphql(
      `query($id: ID!) { memberTargets(memberId: $id, year: 2028) { year targets { amount } } member(id: $id) { targets(year: 2028) { year } none: targets(year: 2040) { year } } }`,
      { id: blue.member_id },
      blueToken,
    );
    expect(read.body).toEqual({
      data: {
        memberTargets: {
          year: 2028,
          targets: [{ amount: 1 }, { amount: 2 }, { amount: 3 }, { amount: 4.5 }],
        },
        member: { targets: { year: 2028 }, none: null },
      },
    });
  });

  it('names the bad index, answers NOT_FOUND and FORBIDDEN like REST, and changes nothing', async () => {
    const before = await stored(blue.member_id);
    const bad = await gw.graphql(SET, {
      input: { memberId: blue.member_id, year: 2028, targets: [1, -2, 3, 4] },
    });
    expect(bad.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(bad.body.errors[0].extensions.errors.map((e: { field: string }) => e.field)).toEqual([
      'targets[1]',
    ]);
    const forbidden = await gw.graphql(
      SET,
      { input: { memberId: blue.member_id, year: 2028, targets: [0, 0, 0, 0] } },
      redManagerToken,
    );
    expect(forbidden.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const none = await gw.graphql('{ memberTargets(memberId: "nobody") { year } }');
    expect(none.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const notYours = await gw.graphql(
      `{ member(id: "${red.member_id}") { targets(year: 2026) { year } } }`,
      undefined,
      blueToken,
    );
    expect(notYours.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(await stored(blue.member_id)).toEqual(before);
  });
});
