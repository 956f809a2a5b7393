import type { AuthenticatedContext } from '../../context/request-context';
import { parseCadence, type ForecastCadence } from '../../domain/forecast-cadence';
import {
  OPEN_FORECAST_CATEGORIES,
  type OpenForecastCategory,
  type StageCategoryMapping,
} from '../../domain/forecast-category';
import { BadUserInputError, NotFoundError, type FieldError } from '../../errors';
import {
  forecastMappingKey,
  SETTINGS_ID,
  SettingsModel,
  type SettingsDoc,
} from '../../models/settings.model';
import { describeValue } from '../../validation/describe-value';
import { requireAdmin } from '../member-access';
import { getDefinition } from '../pipeline.service';
import { settingsUpdated } from '../../events/change-events';
import { pushEvents } from '../../events/outbox/outbox-entry';

/** The mappings of a settings document, in definition id order. */
function mappingsOf(doc: SettingsDoc | null | undefined): StageCategoryMapping[] {
  const stored = doc?.forecastCategories;
  if (!stored) return [];
  const values = stored instanceof Map ? [...stored.values()] : Object.values(stored);
  return values
    .map((m) => ({
      definitionId: m.definitionId,
      stages: m.stages.map((s: { stageId: string; category: OpenForecastCategory }) => ({
        stageId: s.stageId,
        category: s.category,
      })),
    }))
    .sort((a, b) =>
      a.definitionId < b.definitionId ? -1 : a.definitionId > b.definitionId ? 1 : 0,
    );
}

/**
 * Every definition's stage mapping, read without a role check: the import applies the mappings in
 * force when it runs (docs/forecasts.md, "Categories").
 */
export async function readForecastCategoryMappings(): Promise<StageCategoryMapping[]> {
  return mappingsOf(await SettingsModel.findById(SETTINGS_ID).lean<SettingsDoc>().exec());
}

/** A definition's mapping; 404 when none was ever set. Every role may read it. */
export async function getForecastCategoryMapping(
  ctx: AuthenticatedContext,
  definitionId: string,
): Promise<StageCategoryMapping> {
  const doc = await ctx.loaders.accountSettings.load(SETTINGS_ID);
  const mapping = mappingsOf(doc).find((m) => m.definitionId === definitionId);
  if (!mapping)
    throw new NotFoundError(
      `No forecast category mapping is set for pipeline definition ${definitionId}: its deals take their category from the CRM, else from their stage's probability; an admin sets one with PUT /settings/forecast-categories`,
    );
  return mapping;
}

/**
 * Sets (replaces) the mapping of one definition of the latest snapshot: stage id → `pipeline`,
 * `best_case`, `commit` or `omitted`. Admin only (403). Unknown definition: 404. A stage that is
 * not an open stage of the definition, or a category that is none of those: 400 naming
 * `stages.<stage id>`. An empty `stages` leaves every stage to the probability rule. Imports from
 * now on apply it; snapshots already imported keep their categories.
 */
export async function setForecastCategoryMapping(
  ctx: AuthenticatedContext,
  input: { definitionId: string; stages: Record<string, unknown> },
): Promise<StageCategoryMapping> {
  requireAdmin(ctx.principal, 'set the forecast category mapping');
  const definition = await getDefinition(ctx, input.definitionId);
  const errors: FieldError[] = [];
  const stages: Array<{ stageId: string; category: OpenForecastCategory }> = [];
  for (const [stageId, category] of Object.entries(input.stages)) {
    const field = `stages.${stageId}`;
    const stage = definition.stages.find((s) => s.id === stageId);
    if (!stage) {
      errors.push({
        field,
        message: `is not a stage of pipeline definition ${definition.id} (its stages: ${definition.stages.map((s) => s.id).join(', ')})`,
      });
    } else if (stage.isClosed) {
      errors.push({
        field,
        message:
          'is a closed stage: its deals are closed when won and omitted when lost, whatever a mapping says',
      });
    } else if (!(OPEN_FORECAST_CATEGORIES as readonly unknown[]).includes(category)) {
      errors.push({
        field,
        message: `must be one of ${OPEN_FORECAST_CATEGORIES.join(', ')}, got ${describeValue(category)}`,
      });
    } else {
      stages.push({ stageId, category: category as OpenForecastCategory });
    }
  }
  if (errors.length > 0)
    throw new BadUserInputError(
      `Invalid forecast category mapping: ${errors.map((e) => `${e.field} ${e.message}`).join('; ')}`,
      errors,
    );
  const order = new Map(definition.stages.map((s, i) => [s.id, i]));
  stages.sort((a, b) => order.get(a.stageId)! - order.get(b.stageId)!);
  const mapping = { definitionId: definition.id, stages };
  await SettingsModel.updateOne(
    { _id: SETTINGS_ID },
    {
      $set: { [`forecastCategories.${forecastMappingKey(definition.id)}`]: mapping },
      ...pushEvents(settingsUpdated({ forecastCategories: mapping })),
    },
    { upsert: true },
  ).exec();
  return mapping;
}

/** The cadence, or null while it is not set. */
export async function findForecastCadence(
  ctx: AuthenticatedContext,
): Promise<ForecastCadence | null> {
  const doc = await ctx.loaders.accountSettings.load(SETTINGS_ID);
  const stored = doc?.forecastCadence;
  if (!stored) return null;
  const parsed = parseCadence(stored.every, stored.day);
  return 'cadence' in parsed ? parsed.cadence : null;
}

/** The cadence; 404 while it is not set. Every role may read it. */
export async function getForecastCadence(ctx: AuthenticatedContext): Promise<ForecastCadence> {
  const cadence = await findForecastCadence(ctx);
  if (!cadence)
    throw new NotFoundError(
      'The forecast cadence has not been set yet; an admin sets it with PUT /settings/forecast-cadence',
    );
  return cadence;
}

/**
 * Sets the cadence: every `week` on a weekday (`monday`..`sunday`, any case) or every `month` on
 * a day from 1 to 28. Admin only (403); anything else: 400 naming the field.
 */
export async function setForecastCadence(
  ctx: AuthenticatedContext,
  every: unknown,
  day: unknown,
): Promise<ForecastCadence> {
  requireAdmin(ctx.principal, 'set the forecast cadence');
  const parsed = parseCadence(every, day);
  if (!('cadence' in parsed)) {
    const message = `${parsed.problem}, got ${describeValue(parsed.field === 'every' ? every : day)}`;
    throw new BadUserInputError(`Invalid ${parsed.field}: ${message}`, [
      { field: parsed.field, message },
    ]);
  }
  await SettingsModel.updateOne(
    { _id: SETTINGS_ID },
    {
      $set: { forecastCadence: parsed.cadence },
      ...pushEvents(settingsUpdated({ forecastCadence: parsed.cadence })),
    },
    { upsert: true },
  ).exec();
  return parsed.cadence;
}
