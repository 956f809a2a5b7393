import fc from 'fast-check';
import { numericKeys } from '../../src/domain/deal-states';
import {
  closeHistoryAfter,
  stageHistoryAfter,
  type StageEntry,
} from '../../src/domain/deal-history';
import {
  packDealStates,
  unpackDealStates,
  type DealStateRow,
} from '../../src/models/packed-deal-states';

const at = (day: number) => new Date(Date.UTC(2026, 2, day));
const entry = (stageId: string, day: number): StageEntry => ({ stageId, at: at(day) });

describe('stageHistoryAfter', () => {
  it('starts with the CRM entries up to the snapshot, or the snapshot itself when there are none', () => {
    expect(
      stageHistoryAfter(null, [entry('q', 2), entry('p', 5), entry('n', 30)], 'p', at(10)),
    ).toEqual([entry('q', 2), entry('p', 5)]);
    expect(stageHistoryAfter(null, [], 'q', at(10))).toEqual([entry('q', 10)]);
  });

  it('adds a snapshot entry when the deal moved without a CRM entry, and a re-entry the CRM reports', () => {
    const first = stageHistoryAfter(null, [], 'q', at(10));
    const moved = stageHistoryAfter(first, [], 'n', at(20));
    expect(moved).toEqual([entry('q', 10), entry('n', 20)]);
    const back = stageHistoryAfter(moved, [entry('q', 18)], 'q', at(25));
    // q on 18 falls between q on 10 and n on 20: no stage change in between, so one stay; then q again.
    expect(back).toEqual([entry('q', 10), entry('n', 20), entry('q', 25)]);
    expect(stageHistoryAfter(back, [], 'q', at(30))).toEqual(back);
  });

  it('dates a stay by its earliest entry when the CRM reports one before the snapshot that showed it', () => {
    const seen = stageHistoryAfter(null, [], 'q', at(10));
    expect(stageHistoryAfter(seen, [entry('q', 3), entry('p', 15)], 'p', at(20))).toEqual([
      entry('q', 3),
      entry('p', 15),
    ]);
  });
});

describe('closeHistoryAfter', () => {
  it('records a change only when the close date differs', () => {
    const first = closeHistoryAfter(null, at(40), at(1));
    expect(closeHistoryAfter(first, at(40), at(2))).toEqual(first);
    expect(closeHistoryAfter(first, null, at(3))).toEqual([
      { at: at(1), closedAt: at(40) },
      { at: at(3), closedAt: null },
    ]);
  });
});

describe('packDealStates / unpackDealStates', () => {
  const row: fc.Arbitrary<Omit<DealStateRow, 'dealId'> & { definitionId: string }> = fc.record({
    definitionId: fc.constant('d'),
    stageId: fc.constantFrom('a', 'b', 'c'),
    amount: fc.double({ min: 0, max: 1e12, noNaN: true }),
    memberId: fc.constantFrom(null, 'm1', 'm2'),
    teamId: fc.constantFrom(null, 't1'),
    closedAt: fc.option(fc.date({ min: at(1), max: at(300), noInvalidDate: true })),
    outcome: fc.constantFrom('open', 'won', 'lost'),
    stageHistory: fc.array(
      fc.record({
        stageId: fc.constantFrom('a', 'b', 'x'),
        at: fc.date({ min: at(1), max: at(300), noInvalidDate: true }),
      }),
      { maxLength: 4 },
    ),
    closeHistory: fc.array(
      fc.record({
        at: fc.date({ min: at(1), max: at(300), noInvalidDate: true }),
        closedAt: fc.option(fc.date({ min: at(1), max: at(300), noInvalidDate: true })),
      }),
      { maxLength: 3 },
    ),
  });

  it('reads back every deal of every chunk, in order, whatever the ids', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 12 }), { maxLength: 30 }),
        fc.array(row, { minLength: 30, maxLength: 30 }),
        fc.integer({ min: 1, max: 7 }),
        (ids, rows, size) => {
          const deals = [...ids].sort().map((dealId, i) => ({ ...rows[i], dealId }));
          const chunks = [];
          for (let c = 0; c * size < deals.length; c += 1)
            chunks.push(
              packDealStates(
                { snapshotId: 's', definitionId: 'd', chunk: c },
                deals.slice(c * size, (c + 1) * size),
              ),
            );
          const states = unpackDealStates({ snapshotId: 's', definitionId: 'd' }, chunks);
          expect(states.ids).toEqual(deals.map((d) => d.dealId));
          deals.forEach((deal, i) => {
            expect(states.amount[i]).toBe(deal.amount);
            expect(states.stageIds[states.stage[i]]).toBe(deal.stageId);
            expect(Number.isNaN(states.close[i]) ? null : states.close[i]).toBe(
              deal.closedAt?.getTime() ?? null,
            );
            expect(states.member[i] < 0 ? null : states.memberIds[states.member[i]]).toBe(
              deal.memberId,
            );
            expect(states.team[i] < 0 ? null : states.teamIds[states.team[i]]).toBe(deal.teamId);
            const entries = [];
            for (let k = states.stageHistoryStart[i]; k < states.stageHistoryStart[i + 1]; k += 1)
              entries.push({
                stageId: states.stageIds[states.stageHistoryStage[k]],
                at: new Date(states.stageHistoryAt[k]),
              });
            expect(entries).toEqual(deal.stageHistory);
            const changes = [];
            for (let k = states.closeHistoryStart[i]; k < states.closeHistoryStart[i + 1]; k += 1)
              changes.push({
                at: new Date(states.closeHistoryAt[k]),
                closedAt: Number.isNaN(states.closeHistoryClose[k])
                  ? null
                  : new Date(states.closeHistoryClose[k]),
              });
            expect(changes).toEqual(deal.closeHistory);
          });
        },
      ),
    );
  });
});

describe('numericKeys', () => {
  it('keys ids of one length made of digits by their value, which orders them as strings are', () => {
    const ids = ['10000000002', '10000000010', '19999999999'];
    expect(numericKeys(ids)).toEqual({ keys: new Float64Array(ids.map(Number)), keyDigits: 11 });
    expect(numericKeys(['9', '10']).keyDigits).toBe(0);
    expect(numericKeys(['a1', 'a2']).keyDigits).toBe(0);
    expect(numericKeys(['1234567890123456']).keyDigits).toBe(0);
  });
});
