import { normaliseCrmData } from '../../src/import/normalise';
import { validateCrmDocuments } from '../../src/import/validate-documents';
import { sourceHashOf } from '../../src/import/source-hash';
import { MESSY_SKIPPED, messyImport } from './fixtures';

function normaliseMessy() {
  return normaliseCrmData(validateCrmDocuments(messyImport()).documents);
}

describe('normaliseCrmData on the messy HubSpot fixture', () => {
  it('sorts definitions and stages by displayOrder and trusts metadata over labels', () => {
    const { definitions } = normaliseMessy();
    expect(definitions.map((d) => [d.definitionId, d.label, d.displayOrder])).toEqual([
      ['default', 'Sales Pipeline', 0],
      ['renewals', 'Renewals', 1],
    ]);
    expect(definitions[0].stages).toEqual([
      {
        id: 'appointmentscheduled',
        label: 'Appointment Scheduled',
        order: 0,
        isClosed: false,
        probability: 0.2,
      },
      {
        id: 'qualifiedtobuy',
        label: 'Qualified To Buy',
        order: 1,
        isClosed: false,
        probability: 0.4,
      },
      {
        id: 'decisionmakerboughtin',
        label: 'Decision Maker Bought-In',
        order: 2,
        isClosed: false,
        probability: 0.6,
      },
      { id: 'contractsent', label: 'Contract Sent', order: 3, isClosed: false, probability: 0 },
      { id: 'closedwon', label: 'Closed Won', order: 4, isClosed: true, probability: 1 },
      { id: 'closedlost', label: 'Closed Lost', order: 5, isClosed: true, probability: 0 },
    ]);
    // "Closed Lost" by label, open by metadata: metadata wins.
    expect(definitions[1].stages.map((s) => [s.id, s.label, s.isClosed, s.probability])).toEqual([
      ['r-open', 'Up for renewal', false, 0.5],
      ['r-nego', 'Closed Lost', false, 0.8],
      ['r-won', 'Renewed', true, 1],
      ['r-lost', 'Churned', true, 0],
    ]);
  });

  it('keeps only deals with a pipeline and a stage in it, with amounts defaulted to 0', () => {
    const { deals } = normaliseMessy();
    expect(
      deals.map((d) => [d.dealId, d.definitionId, d.stageId, d.amount, d.outcome, d.ownerId]),
    ).toEqual([
      ['d1', 'default', 'qualifiedtobuy', 3000, 'open', '101'],
      ['d10', 'default', 'appointmentscheduled', 400, 'open', null],
      ['d11', 'default', 'decisionmakerboughtin', 750.5, 'open', null],
      ['d13', 'renewals', 'r-open', 2500, 'open', '102'],
      ['d2', 'default', 'closedwon', 5000, 'won', '101'],
      ['d3', 'default', 'closedlost', 0, 'lost', '102'],
      ['d4', 'renewals', 'r-nego', 0, 'open', '104'],
      ['d5', 'renewals', 'r-won', 1200, 'won', '103'],
    ]);
    const d2 = deals.find((d) => d.dealId === 'd2')!;
    expect(d2.closedAt?.toISOString()).toBe('2025-04-20T15:30:00.000Z');
    expect(d2.createdAt?.toISOString()).toBe('2025-01-15T10:00:00.000Z');
  });

  it('makes members only of active owners with an e-mail, taking the primary team, else the first', () => {
    const { owners } = normaliseMessy();
    expect(owners.map((o) => [o.ownerId, o.email, o.team?.id ?? null])).toEqual([
      ['101', 'ada@example.com', 't-east'],
      ['102', 'Grace.Hopper@Example.com', 't-west'],
      ['103', 'alan@example.com', null],
      ['104', 'LINUS@EXAMPLE.COM', 't-west'],
    ]);
  });

  it('reports every left-out or defaulted item with its id and reason', () => {
    expect(normaliseMessy().skipped.map((s) => [s.id, s.reason])).toEqual(MESSY_SKIPPED);
  });

  it('gives the same source hash whatever the page order, and a different one for another snapshot_at', () => {
    const a = normaliseMessy();
    // Reversing the pages would make the other d2 the first occurrence: reverse within pages instead.
    const reordered = messyImport();
    reordered.deals[0].results.reverse();
    reordered.deals[1].results.reverse();
    reordered.owners.results.reverse();
    const b = normaliseCrmData(validateCrmDocuments(reordered).documents);
    expect(sourceHashOf(a, null, null)).toBe(sourceHashOf(b, null, null));
    expect(sourceHashOf(a, null, null)).not.toBe(
      sourceHashOf(a, new Date('2025-06-30T00:00:00Z'), null),
    );
    expect(sourceHashOf(a, null, null)).not.toBe(sourceHashOf(a, null, 'quarterly'));
    expect(sourceHashOf(a, null, 'quarterly')).not.toBe(sourceHashOf(a, null, 'monthly'));
  });

  it('takes an amount in exponent form and rejects thousands separators', () => {
    const input = messyImport();
    input.deals[0].results[0].properties.amount = '1.5e3';
    input.deals[0].results[1].properties.amount = '1,000';
    const data = normaliseCrmData(validateCrmDocuments(input).documents);
    expect(data.deals.find((d) => d.dealId === 'd1')?.amount).toBe(1500);
    expect(data.skipped).toContainEqual({
      id: 'd2',
      reason: 'deal has amount "1,000", which is not a number; left out of every metric',
    });
  });
});
