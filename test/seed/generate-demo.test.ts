import { normaliseCrmData } from '../../src/import/normalise';
import { validateCrmDocuments } from '../../src/import/validate-documents';
import { DEMO_PEOPLE } from '../../src/seed/demo-company';
import { generateDemoDocuments } from '../../src/seed/generate-demo';
import { Prng } from '../../src/seed/prng';

const NOW = new Date('2026-02-15T12:00:00.000Z');

describe('generateDemoDocuments', () => {
  it('is deterministic for a seed and a date, and differs for another seed', () => {
    const a = generateDemoDocuments({ deals: 300, now: NOW });
    expect(generateDemoDocuments({ deals: 300, now: NOW })).toEqual(a);
    expect(generateDemoDocuments({ deals: 300, now: NOW, seed: 7 }).deals).not.toEqual(a.deals);
  });

  it('produces valid HubSpot documents that import without any skipped item', () => {
    const docs = generateDemoDocuments({ now: NOW });
    expect(docs.deals).toHaveLength(30); // 3000 deals in pages of 100
    expect(docs.deals[0].paging).toEqual({ next: { after: '100' } });
    expect(docs.deals[29].paging).toBeUndefined();
    const data = normaliseCrmData(validateCrmDocuments(docs).documents);
    expect(data.skipped).toEqual([]);
    expect(data.deals).toHaveLength(3000);
    expect(data.definitions.map((d) => [d.label, d.stages.length])).toEqual([
      ['New Business', 7],
      ['Renewals', 6],
    ]);
    const closedStages = data.definitions.flatMap((d) =>
      d.stages.filter((s) => s.isClosed).map((s) => [s.label, s.probability]),
    );
    expect(closedStages).toEqual([
      ['Closed Won', 1],
      ['Closed Lost', 0],
      ['Renewed', 1],
      ['Churned', 0],
    ]);
    expect(data.owners).toHaveLength(12);
    expect(new Set(data.owners.map((o) => o.team?.id)).size).toBe(3);
  });

  it('spreads deals over two years with a realistic mix of outcomes and a stage history', () => {
    const data = normaliseCrmData(
      validateCrmDocuments(generateDemoDocuments({ now: NOW })).documents,
    );
    const created = data.deals.map((d) => d.createdAt!.getTime());
    expect(Math.min(...created)).toBeGreaterThanOrEqual(NOW.getTime() - 731 * 86_400_000);
    expect(Math.max(...created)).toBeLessThan(NOW.getTime());
    const share = (outcome: string) =>
      data.deals.filter((d) => d.outcome === outcome).length / data.deals.length;
    expect(share('won')).toBeGreaterThan(0.2);
    expect(share('lost')).toBeGreaterThan(0.2);
    expect(share('open')).toBeGreaterThan(0.03);
    // Every deal entered its first stage at creation, and closed deals entered their final stage at close.
    const firstStage = new Map(data.definitions.map((d) => [d.definitionId, d.stages[0].id]));
    const bad = data.deals.filter(
      (deal) =>
        deal.stageEnteredAt[firstStage.get(deal.definitionId)!]?.getTime() !==
          deal.createdAt?.getTime() ||
        (deal.outcome !== 'open' &&
          deal.stageEnteredAt[deal.stageId]?.getTime() !== deal.closedAt?.getTime()),
    );
    expect(bad.map((d) => d.dealId)).toEqual([]);
    expect(new Set(data.deals.map((d) => d.ownerId))).toEqual(
      new Set(DEMO_PEOPLE.map((p) => p.ownerId)),
    );
  });
});

describe('Prng', () => {
  it('repeats its sequence for a seed and stays in [0, 1)', () => {
    const a = new Prng(42);
    const b = new Prng(42);
    const values = Array.from({ length: 1000 }, () => a.next());
    expect(values).toEqual(Array.from({ length: 1000 }, () => b.next()));
    expect(values.every((v) => v >= 0 && v < 1)).toBe(true);
  });
});
