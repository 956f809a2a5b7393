/**
 * Internal to the pipeline tests: the contract's metric formulas computed straight from a fixture's
 * HubSpot rows (text amounts, text probabilities), independently of the gateway's facts and
 * evaluation code, so the tests compare two separate computations.
 */
import type { CrmFixture, FixtureDeal } from '../fixtures/crm-fixture';

export interface Scope {
  definitionId: string;
  /** HubSpot owner ids whose deals count; null: every deal of the definition (complete pipeline). */
  owners: string[] | null;
}

export interface Window {
  /** Inclusive, ISO date `YYYY-MM-DD`. */
  start: string;
  /** Inclusive last day, ISO date. */
  end: string;
}

export interface ExpectedMetrics {
  pipeline_value: number;
  weighted_pipeline_value: number;
  open_opportunities: number;
  win_rate: number | null;
  average_deal_size: number | null;
  average_sales_cycle: number | null;
  /** Present only when `targets` is given. */
  quota_attainment?: number | null;
  pipeline_coverage?: number | null;
}

const round2 = (x: number) => Math.round(x * 100 + Number.EPSILON * 100) / 100;

function amountOf(deal: FixtureDeal): number {
  return deal.amount === undefined || deal.amount.trim() === '' ? 0 : Number(deal.amount);
}

/** The owners of the deals of a scope: "the pipeline's members" whose targets count. */
export function ownersIn(fixture: CrmFixture, scope: Scope): string[] {
  const owners = new Set<string>();
  for (const deal of dealsIn(fixture, scope)) if (deal.owner) owners.add(deal.owner);
  return [...owners].sort();
}

export function dealsIn(fixture: CrmFixture, scope: Scope): FixtureDeal[] {
  return fixture.deals.filter(
    (deal) =>
      deal.pipeline === scope.definitionId &&
      (scope.owners === null || (deal.owner !== null && scope.owners.includes(deal.owner))),
  );
}

/**
 * Every metric of the catalogue for one scope. `window` is the configured period containing the
 * snapshot; `targets` the sum of the scope's members' targets for it (undefined: none set).
 */
export function expectedMetrics(
  fixture: CrmFixture,
  scope: Scope,
  window: Window,
  targets?: number,
): ExpectedMetrics {
  const definition = fixture.definitions.find((d) => d.id === scope.definitionId)!;
  const stage = new Map(
    definition.stages.map((s) => [s.id, { closed: s.isClosed, p: parseFloat(s.probability) }]),
  );
  const from = Date.parse(`${window.start}T00:00:00Z`);
  const to = Date.parse(`${window.end}T00:00:00Z`) + 86_400_000;
  const inWindow = (iso: string | null) =>
    iso !== null && Date.parse(iso) >= from && Date.parse(iso) < to;

  let openCount = 0,
    openAmount = 0,
    weighted = 0,
    won = 0,
    lost = 0,
    wonAmount = 0,
    openClosing = 0;
  const cycles: number[] = [];
  for (const deal of dealsIn(fixture, scope)) {
    const s = stage.get(deal.stage)!;
    const amount = amountOf(deal);
    if (!s.closed) {
      openCount += 1;
      openAmount += amount;
      weighted += amount * s.p;
      if (inWindow(deal.closedate)) openClosing += amount;
    } else if (inWindow(deal.closedate)) {
      if (s.p === 1) {
        won += 1;
        wonAmount += amount;
        cycles.push((Date.parse(deal.closedate!) - Date.parse(deal.createdate)) / 86_400_000);
      } else {
        lost += 1;
      }
    }
  }
  const result: ExpectedMetrics = {
    pipeline_value: round2(openAmount),
    weighted_pipeline_value: round2(weighted),
    open_opportunities: openCount,
    win_rate: won + lost > 0 ? round2((won / (won + lost)) * 100) : null,
    average_deal_size: won > 0 ? round2(wonAmount / won) : null,
    average_sales_cycle:
      cycles.length > 0 ? round2(cycles.reduce((a, b) => a + b, 0) / cycles.length) : null,
  };
  if (targets !== undefined) {
    result.quota_attainment = targets > 0 ? round2((wonAmount / targets) * 100) : null;
    result.pipeline_coverage =
      targets - wonAmount > 0 ? round2((openClosing / (targets - wonAmount)) * 100) : null;
  }
  return result;
}
