import { periodOf } from '../domain/period';
import type { DemoDocuments } from './generate-demo';
import { Prng } from './prng';

/**
 * Quarterly targets per owner for `years`, derived from what the generated deals actually won so
 * attainment lands around 70–110 %: the owner's average won amount per quarter × 1.0–1.3, Q4
 * weighted up, rounded to 1000 (at least 10 000).
 */
export function demoTargets(
  docs: DemoDocuments,
  years: number[],
  seed: number,
): Map<string, Map<number, number[]>> {
  const wonStages = new Set<string>();
  for (const p of docs.pipelines.results) {
    for (const s of p.stages)
      if (s.metadata?.isClosed === 'true' && Number(s.metadata.probability) === 1)
        wonStages.add(s.id);
  }
  const wonByOwner = new Map<string, number>();
  const quarters = new Set<string>();
  for (const page of docs.deals) {
    for (const deal of page.results) {
      const p = deal.properties ?? {};
      if (p.createdate) {
        const q = periodOf('quarterly', new Date(p.createdate));
        quarters.add(`${q.year}-${q.index}`);
      }
      if (!wonStages.has(p.dealstage ?? '') || !p.hubspot_owner_id) continue;
      wonByOwner.set(
        p.hubspot_owner_id,
        (wonByOwner.get(p.hubspot_owner_id) ?? 0) + Number(p.amount ?? 0),
      );
    }
  }
  const rng = new Prng(seed);
  const seasonal = [0.9, 1.0, 0.95, 1.15];
  const targets = new Map<string, Map<number, number[]>>();
  for (const owner of docs.owners.results) {
    const perQuarter = (wonByOwner.get(owner.id) ?? 0) / Math.max(1, quarters.size);
    const byYear = new Map<number, number[]>();
    for (const year of years) {
      const stretch = 1 + rng.next() * 0.3;
      byYear.set(
        year,
        seasonal.map((s) => Math.max(10_000, Math.round((perQuarter * stretch * s) / 1000) * 1000)),
      );
    }
    targets.set(owner.id, byYear);
  }
  return targets;
}
