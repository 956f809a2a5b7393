import type { Outcome } from '../models/opportunity.model';

/**
 * Forecast categories (docs/forecasts.md): every open deal is `pipeline`, `best_case` or `commit`
 * (or `omitted` when the CRM leaves it out of the forecast); won deals are `closed`, lost ones
 * `omitted`.
 */
export type ForecastCategory = 'pipeline' | 'best_case' | 'commit' | 'closed' | 'omitted';

export const FORECAST_CATEGORIES: readonly ForecastCategory[] = [
  'pipeline',
  'best_case',
  'commit',
  'closed',
  'omitted',
];

/** The categories an admin may map an open stage to. */
export type OpenForecastCategory = Exclude<ForecastCategory, 'closed'>;

export const OPEN_FORECAST_CATEGORIES: readonly OpenForecastCategory[] = [
  'pipeline',
  'best_case',
  'commit',
  'omitted',
];

/** An admin's mapping of one definition's stages to categories (PUT /settings/forecast-categories). */
export interface StageCategoryMapping {
  definitionId: string;
  stages: ReadonlyArray<{ stageId: string; category: OpenForecastCategory }>;
}

/** Where a deal's category came from, the first rule that applied. */
export type ForecastCategorySource = 'outcome' | 'crm' | 'mapping' | 'probability';

export const FORECAST_CATEGORY_SOURCES: readonly ForecastCategorySource[] = [
  'outcome',
  'crm',
  'mapping',
  'probability',
];

/**
 * The CRM's spellings of each category, letters only and lower-cased: HubSpot's internal values
 * (`COMMIT`, `BEST_CASE`, `PIPELINE`, `OMIT`, `CLOSED`) and labels ("Not forecasted"),
 * Salesforce's `ForecastCategoryName` ("Best Case", "Omitted", "Closed").
 */
const CRM_SPELLINGS: Record<string, ForecastCategory> = {
  pipeline: 'pipeline',
  bestcase: 'best_case',
  commit: 'commit',
  closed: 'closed',
  closedwon: 'closed',
  omit: 'omitted',
  omitted: 'omitted',
  notforecasted: 'omitted',
};

/**
 * A CRM's forecast category value as a category: null when it is blank, `unknown` (with the raw
 * text) when it names none of them.
 */
export function parseCrmForecastCategory(
  value: unknown,
): ForecastCategory | null | { unknown: string } {
  if (typeof value !== 'string' || value.trim() === '') return null;
  const key = value.toLowerCase().replace(/[^a-z]/g, '');
  return CRM_SPELLINGS[key] ?? { unknown: value.trim() };
}

/** The probability rule: ≥ 0.8 commit, ≥ 0.5 best case, else pipeline. */
export function categoryOfProbability(probability: number): OpenForecastCategory {
  if (probability >= 0.8) return 'commit';
  if (probability >= 0.5) return 'best_case';
  return 'pipeline';
}

/** What decides one deal's category. */
export interface CategoryInputs {
  outcome: Outcome;
  /** What the CRM says, if anything. */
  crm: ForecastCategory | null;
  /** The admin's mapping of the deal's stage, if any. */
  mapped: OpenForecastCategory | null;
  /** The probability of the deal's stage (0..1). */
  probability: number;
}

/**
 * A deal's category and where it came from: won deals are `closed` and lost ones `omitted`
 * whatever else says; an open deal takes the CRM's category (except `closed`, which an open deal
 * cannot be), else its stage's mapping, else its stage's probability.
 */
export function resolveForecastCategory(inputs: CategoryInputs): {
  category: ForecastCategory;
  source: ForecastCategorySource;
} {
  if (inputs.outcome === 'won') return { category: 'closed', source: 'outcome' };
  if (inputs.outcome === 'lost') return { category: 'omitted', source: 'outcome' };
  if (inputs.crm !== null && inputs.crm !== 'closed')
    return { category: inputs.crm, source: 'crm' };
  if (inputs.mapped !== null) return { category: inputs.mapped, source: 'mapping' };
  return { category: categoryOfProbability(inputs.probability), source: 'probability' };
}
