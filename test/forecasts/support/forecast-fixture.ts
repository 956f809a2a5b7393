/**
 * HubSpot-shaped bodies for the forecast tests, described compactly so that every expected figure
 * is computed here, from the same deals, by the documented rules (docs/forecasts.md), and never
 * read back from the gateway.
 */
import { periodOf, type PeriodSlot, type PeriodUnit } from '../../../src/domain/period';

export interface Stage {
  id: string;
  isClosed: boolean;
  probability: number;
}

export const SALES: Stage[] = [
  { id: 's-lead', isClosed: false, probability: 0.1 },
  { id: 's-demo', isClosed: false, probability: 0.5 },
  { id: 's-nego', isClosed: false, probability: 0.8 },
  { id: 's-mapped', isClosed: false, probability: 0.3 },
  { id: 's-won', isClosed: true, probability: 1 },
  { id: 's-lost', isClosed: true, probability: 0 },
];

export const RENEWALS: Stage[] = [
  { id: 'r-open', isClosed: false, probability: 0.6 },
  { id: 'r-won', isClosed: true, probability: 1 },
  { id: 'r-lost', isClosed: true, probability: 0 },
];

export const PIPELINES: Record<string, Stage[]> = { sales: SALES, renewals: RENEWALS };

export interface Owner {
  id: string;
  email: string;
  team: string;
}

/** Ada and Grace in east with Root (made the admin), Alan and Bob in west. */
export const OWNERS: Owner[] = [
  { id: '201', email: 'ada@forecast.example', team: 'east' },
  { id: '202', email: 'grace@forecast.example', team: 'east' },
  { id: '203', email: 'alan@forecast.example', team: 'west' },
  { id: '204', email: 'bob@forecast.example', team: 'west' },
  { id: '205', email: 'root@forecast.example', team: 'east' },
];

export interface Deal {
  id: string;
  pipeline: string;
  stage: string;
  amount: number;
  owner: string | null;
  closedate: Date;
  /** hs_manual_forecast_category, hs_forecast_category as HubSpot sends them. */
  manual?: string;
  hubspot?: string;
  /** ForecastCategoryName, as a deal brought over from Salesforce carries it. */
  salesforce?: string;
}

export type Category = 'pipeline' | 'best_case' | 'commit' | 'closed' | 'omitted';

/** A deal's category by the documented rules, given the stage mappings in force at its import. */
export function expectedCategory(
  deal: Deal,
  mapping: Record<string, Category> = {},
): { category: Category; source: string } {
  const stage = PIPELINES[deal.pipeline].find((s) => s.id === deal.stage)!;
  if (stage.isClosed)
    return stage.probability === 1
      ? { category: 'closed', source: 'outcome' }
      : { category: 'omitted', source: 'outcome' };
  const crm = crmCategory(deal.manual) ?? crmCategory(deal.hubspot) ?? crmCategory(deal.salesforce);
  if (crm && crm !== 'closed') return { category: crm, source: 'crm' };
  if (mapping[deal.stage]) return { category: mapping[deal.stage], source: 'mapping' };
  const p = stage.probability;
  return {
    category: p >= 0.8 ? 'commit' : p >= 0.5 ? 'best_case' : 'pipeline',
    source: 'probability',
  };
}

function crmCategory(value: string | undefined): Category | null {
  switch (value) {
    case 'COMMIT':
      return 'commit';
    case 'BEST_CASE':
      return 'best_case';
    case 'PIPELINE':
      return 'pipeline';
    case 'OMIT':
    case 'Omitted':
      return 'omitted';
    case 'CLOSED':
      return 'closed';
    default:
      return null;
  }
}

export interface Sums {
  closed: number;
  commit: number;
  best_case: number;
  pipeline: number;
}

/** The forecast sums of `deals` over `slot`: won closing in it, open closing in it by category. */
export function sums(
  deals: Deal[],
  slot: PeriodSlot,
  mapping: Record<string, Category> = {},
): Sums {
  const out: Sums = { closed: 0, commit: 0, best_case: 0, pipeline: 0 };
  for (const deal of deals) {
    const t = deal.closedate.getTime();
    if (t < slot.startsAt.getTime() || t >= slot.endsBefore.getTime()) continue;
    const { category } = expectedCategory(deal, mapping);
    if (category === 'omitted') continue;
    out[category] += deal.amount;
  }
  return out;
}

/** The slot `offset` periods from the one containing `at`. */
export function slotFrom(unit: PeriodUnit, at: Date, offset = 0): PeriodSlot {
  let slot = periodOf(unit, at);
  for (let i = 0; i < Math.abs(offset); i += 1) {
    const edge = offset > 0 ? slot.endsBefore.getTime() : slot.startsAt.getTime() - 1;
    slot = periodOf(unit, new Date(edge));
  }
  return slot;
}

/** `2026-Q4`. */
export function nameOf(slot: PeriodSlot): string {
  return `${slot.year}-${slot.label}`;
}

const DAY = 86_400_000;

/** A day inside `slot`: `n` days after its start (clamped to its last day), at noon. */
export function dayIn(slot: PeriodSlot, n: number): Date {
  const last = slot.endsBefore.getTime() - DAY;
  return new Date(Math.min(slot.startsAt.getTime() + n * DAY, last) + 12 * 3_600_000);
}

/** The body of POST /crm/imports for these deals. */
export function importBody(
  deals: Deal[],
  extra: { snapshot_at?: string; force?: boolean } = {},
): Record<string, unknown> {
  return {
    ...extra,
    pipelines: {
      results: Object.entries(PIPELINES).map(([id, stages], order) => ({
        id,
        label: id === 'sales' ? 'Sales' : 'Renewals',
        displayOrder: order,
        archived: false,
        stages: stages.map((s, i) => ({
          id: s.id,
          label: s.id,
          displayOrder: i,
          archived: false,
          metadata: { isClosed: String(s.isClosed), probability: String(s.probability) },
        })),
      })),
    },
    owners: {
      results: OWNERS.map((o, i) => ({
        id: o.id,
        email: o.email,
        firstName: o.email.split('@')[0],
        lastName: 'Forecast',
        userId: 7000 + i,
        archived: false,
        teams: [{ id: o.team, name: o.team, primary: true }],
      })),
    },
    deals: {
      results: deals.map((deal) => ({
        id: deal.id,
        archived: false,
        properties: {
          dealname: `Deal ${deal.id}`,
          amount: String(deal.amount),
          pipeline: deal.pipeline,
          dealstage: deal.stage,
          hubspot_owner_id: deal.owner,
          createdate: new Date(deal.closedate.getTime() - 200 * DAY).toISOString(),
          closedate: deal.closedate.toISOString(),
          ...(deal.manual === undefined ? {} : { hs_manual_forecast_category: deal.manual }),
          ...(deal.hubspot === undefined ? {} : { hs_forecast_category: deal.hubspot }),
          ...(deal.salesforce === undefined ? {} : { ForecastCategoryName: deal.salesforce }),
        },
      })),
    },
  };
}
