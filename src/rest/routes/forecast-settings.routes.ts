import { EVERY_ROLE, adminOnly } from '../route-roles';
import type { StageCategoryMapping } from '../../domain/forecast-category';
import { ErrorCode } from '../../errors';
import * as forecastSettings from '../../services/forecasts/forecast-settings.service';
import { envelopeSchema } from '../envelope-schema';
import {
  ForecastCategoriesQuery,
  SetCadenceBody,
  SetForecastCategoriesBody,
} from '../inputs/forecast.inputs';
import { ok, type RouteDefinition } from '../route-definition';

const TAG = 'Settings';

const MAPPING_RESPONSE = envelopeSchema(
  {
    pipeline_definition_id: { type: 'string' },
    stages: {
      type: 'object',
      description: 'Stage id → pipeline, best_case, commit or omitted.',
      additionalProperties: { type: 'string' },
    },
  },
  ['pipeline_definition_id', 'stages'],
);

function toRestMapping(mapping: StageCategoryMapping) {
  return {
    pipeline_definition_id: mapping.definitionId,
    stages: Object.fromEntries(mapping.stages.map((s) => [s.stageId, s.category])),
  };
}

const setMappingRoute: RouteDefinition<SetForecastCategoriesBody> = {
  method: 'PUT',
  path: '/settings/forecast-categories',
  summary:
    "Set (replace) a pipeline definition's stage → forecast category mapping (admin); imports from now on apply it",
  tag: TAG,
  authenticated: true,
  roles: adminOnly('set the forecast category mapping'),
  errors: [ErrorCode.NOT_FOUND],
  input: SetForecastCategoriesBody,
  response: MAPPING_RESPONSE,
  handler: async (ctx, input) => {
    const mapping = await forecastSettings.setForecastCategoryMapping(ctx, {
      definitionId: input.pipeline_definition_id,
      stages: input.stages,
    });
    return ok(
      `Forecast categories of ${mapping.stages.length} stage(s) of ${mapping.definitionId} set`,
      toRestMapping(mapping),
    );
  },
};

const getMappingRoute: RouteDefinition<ForecastCategoriesQuery> = {
  method: 'GET',
  path: '/settings/forecast-categories',
  cacheable: true,
  summary: "Read a pipeline definition's stage → forecast category mapping",
  tag: TAG,
  authenticated: true,
  roles: EVERY_ROLE,
  errors: [ErrorCode.NOT_FOUND],
  input: ForecastCategoriesQuery,
  response: MAPPING_RESPONSE,
  handler: async (ctx, input) => {
    const mapping = await forecastSettings.getForecastCategoryMapping(
      ctx,
      input.pipeline_definition_id,
    );
    return ok('Forecast category mapping found', toRestMapping(mapping));
  },
};

const CADENCE_RESPONSE = envelopeSchema(
  {
    every: { type: 'string', enum: ['week', 'month'] },
    day: { type: ['string', 'integer'], description: 'monday..sunday (week), 1..28 (month)' },
  },
  ['every', 'day'],
);

const setCadenceRoute: RouteDefinition<SetCadenceBody> = {
  method: 'PUT',
  path: '/settings/forecast-cadence',
  summary:
    'Set when forecast calls are due: every week on a weekday, or every month on a day (admin)',
  tag: TAG,
  authenticated: true,
  roles: adminOnly('set the forecast cadence'),
  input: SetCadenceBody,
  response: CADENCE_RESPONSE,
  handler: async (ctx, input) => {
    const cadence = await forecastSettings.setForecastCadence(ctx, input.every, input.day);
    return ok(`Forecast cadence set: every ${cadence.every} on ${cadence.day}`, cadence);
  },
};

const getCadenceRoute: RouteDefinition = {
  method: 'GET',
  path: '/settings/forecast-cadence',
  cacheable: true,
  summary: 'Read the forecast cadence',
  tag: TAG,
  authenticated: true,
  roles: EVERY_ROLE,
  errors: [ErrorCode.NOT_FOUND],
  response: CADENCE_RESPONSE,
  handler: async (ctx) =>
    ok('Forecast cadence found', await forecastSettings.getForecastCadence(ctx)),
};

export const forecastSettingsRoutes: RouteDefinition[] = [
  setMappingRoute,
  getMappingRoute,
  setCadenceRoute,
  getCadenceRoute,
] as RouteDefinition[];
