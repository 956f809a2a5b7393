import { backfillPeriodEnds, MAX_BACKFILL_PERIODS } from '../../src/import/backfill-periods';
import { normaliseCrmData } from '../../src/import/normalise';
import { stateAt } from '../../src/import/opportunity-state';
import { validateCrmDocuments } from '../../src/import/validate-documents';
import { fixture } from './fixtures';

const at = (iso: string) => new Date(iso);

describe('backfillPeriodEnds', () => {
  it('lists the past quarter ends from the earliest creation, each at its last millisecond', () => {
    const ends = backfillPeriodEnds(
      'quarterly',
      at('2025-01-10T09:00:00Z'),
      at('2026-02-15T12:00:00Z'),
    );
    expect(ends.map((e) => [e.slot.label, e.slot.year, e.at.toISOString()])).toEqual([
      ['Q1', 2025, '2025-03-31T23:59:59.999Z'],
      ['Q2', 2025, '2025-06-30T23:59:59.999Z'],
      ['Q3', 2025, '2025-09-30T23:59:59.999Z'],
      ['Q4', 2025, '2025-12-31T23:59:59.999Z'],
    ]);
  });

  it('writes nothing when every deal was created in the current period, or none has a date', () => {
    expect(
      backfillPeriodEnds('monthly', at('2026-02-01T00:00:00Z'), at('2026-02-15T00:00:00Z')),
    ).toEqual([]);
    expect(backfillPeriodEnds('monthly', null, at('2026-02-15T00:00:00Z'))).toEqual([]);
  });

  it('goes back at most 104 periods', () => {
    const ends = backfillPeriodEnds(
      'weekly',
      at('2010-01-01T00:00:00Z'),
      at('2026-02-15T00:00:00Z'),
    );
    expect(ends).toHaveLength(MAX_BACKFILL_PERIODS);
    expect(ends[ends.length - 1].slot.label).toBe('w6'); // 2026-02-15 is in w7
  });
});

describe('stateAt on the hand-checked backfill fixture', () => {
  const data = normaliseCrmData(validateCrmDocuments(fixture('backfill/combined.json')).documents);
  const definition = data.definitions[0];
  const states = (iso: string) =>
    Object.fromEntries(
      data.deals.map((deal) => {
        const state = stateAt(deal, definition, at(iso));
        return [deal.dealId, state ? `${state.outcome}:${state.stageId}` : 'absent'];
      }),
    );

  it('reconstructs each quarter end', () => {
    expect(states('2025-03-31T23:59:59.999Z')).toEqual({
      A: 'open:s1',
      B: 'open:s1',
      C: 'absent',
      D: 'absent',
    });
    expect(states('2025-06-30T23:59:59.999Z')).toEqual({
      A: 'open:s2',
      B: 'lost:lost',
      C: 'open:s1',
      D: 'absent',
    });
    expect(states('2025-09-30T23:59:59.999Z')).toEqual({
      A: 'won:won',
      B: 'lost:lost',
      C: 'open:s1',
      D: 'absent',
    });
    // D has no stage history: its first open stage by display order.
    expect(states('2025-12-31T23:59:59.999Z')).toEqual({
      A: 'won:won',
      B: 'lost:lost',
      C: 'open:s2',
      D: 'open:s1',
    });
  });
});
