import {
  type OpenForecastCategory,
  resolveForecastCategory,
  type StageCategoryMapping,
} from '../domain/forecast-category';
import type { NormalisedDefinition } from './normalised.types';
import type { OpportunityRow } from './snapshot-writer';

/**
 * Sets every row's forecast category and its source, as of this import (docs/forecasts.md): the
 * outcome for won and lost deals, else the CRM's category the row carries, else the mapping in
 * force now, else the probability of the row's stage in `definitions`. Kept rows of an
 * incremental import are decided again the same way, so the snapshot reads as a full import of
 * the same picture would.
 */
export function categoriseRows(
  rows: OpportunityRow[],
  definitions: readonly NormalisedDefinition[],
  mappings: readonly StageCategoryMapping[],
): void {
  const key = (definitionId: string, stageId: string) => `${definitionId}\u0000${stageId}`;
  const probability = new Map<string, number>();
  for (const definition of definitions)
    for (const stage of definition.stages)
      probability.set(key(definition.definitionId, stage.id), stage.probability);
  const mapped = new Map<string, OpenForecastCategory>();
  for (const mapping of mappings)
    for (const { stageId, category } of mapping.stages)
      mapped.set(key(mapping.definitionId, stageId), category);
  for (const row of rows) {
    const stage = key(row.definitionId, row.stageId);
    const { category, source } = resolveForecastCategory({
      outcome: row.outcome,
      crm: row.crmForecastCategory,
      mapped: mapped.get(stage) ?? null,
      probability: probability.get(stage) ?? 0,
    });
    row.forecastCategory = category;
    row.forecastCategorySource = source;
  }
}
