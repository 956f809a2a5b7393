import type { RouteDefinition } from '../route-definition';
import { analyticsRoutes } from './analytics.routes';
import { openApiRoute } from './openapi.routes';
import { forecastSettingsRoutes } from './forecast-settings.routes';
import { forecastsRoutes } from './forecasts.routes';
import { importsRoutes } from './imports.routes';
import { membersRoutes } from './members.routes';
import { operationsRoutes } from './operations.routes';
import { pipelinesRoutes } from './pipelines.routes';
import { settingsRoutes } from './settings.routes';
import { snapshotsRoutes } from './snapshots.routes';
import { syncsRoutes } from './syncs.routes';
import { targetsRoutes } from './targets.routes';
import { teamsRoutes } from './teams.routes';
import { tokensRoutes } from './tokens.routes';
import { webhooksRoutes } from './webhooks.routes';
import { alertsRoutes } from './alerts.routes';

/**
 * Every REST route module, registered by the gateway and listed in the OpenAPI document.
 * Domain modules append their `<domain>Routes` array here.
 */
export const ROUTES: readonly RouteDefinition[] = [
  ...operationsRoutes,
  ...tokensRoutes,
  ...teamsRoutes,
  ...membersRoutes,
  ...targetsRoutes,
  ...settingsRoutes,
  ...forecastSettingsRoutes,
  ...forecastsRoutes,
  ...pipelinesRoutes,
  ...analyticsRoutes,
  ...snapshotsRoutes,
  ...importsRoutes,
  ...syncsRoutes,
  ...webhooksRoutes,
  ...alertsRoutes,
  openApiRoute(() => ROUTES),
];
