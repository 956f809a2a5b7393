// trusted(): the operators here are ours, never client input (filters are sanitised globally).
import { trusted } from 'mongoose';
import { CrmOwnerLinkModel } from '../models/crm-owner-link.model';
import { DefinitionModel } from '../models/definition.model';
import { ForecastSubmissionModel } from '../models/forecast-submission.model';
import { MemberModel } from '../models/member.model';
import { OpportunityModel } from '../models/opportunity.model';
import { PipelineFactsModel } from '../models/pipeline-facts.model';
import { PipelineModel } from '../models/pipeline.model';
import { PrunedSnapshotModel } from '../models/pruned-snapshot.model';
import { SETTINGS_ID, SettingsModel } from '../models/settings.model';
import { SnapshotModel } from '../models/snapshot.model';
import { TargetModel } from '../models/target.model';
import { TeamModel } from '../models/team.model';
import { DEMO_CURRENCY, DEMO_PERIOD } from '../seed/demo-company';
import type { AccountSettings } from '../services/settings.service';

/**
 * Whether the database holds the demo company and nothing imported besides: it has committed
 * snapshots, all of them the demo's (`demo: true`, written by the seed). Called under the import
 * lease, where no pending snapshot is left.
 */
export async function holdsOnlyDemo(): Promise<boolean> {
  const own = await SnapshotModel.findOne({ demo: trusted({ $ne: true }) }, { _id: 1 }).lean();
  if (own !== null) return false;
  return (await SnapshotModel.findOne({ demo: true }, { _id: 1 }).lean()) !== null;
}

/**
 * The settings an import onto the demo company goes by: the demo's own (its currency and period,
 * unchanged since the seed) go with it; a currency or period the user has set stays.
 */
export function settingsAfterDemo(settings: AccountSettings): AccountSettings {
  return settings.currency === DEMO_CURRENCY && settings.period === DEMO_PERIOD
    ? { currency: null, period: null }
    : settings;
}

/**
 * Removes the demo company before the first import of the user's own data (docs/importing.md,
 * "Your data replaces the demo"): its snapshots with their definitions, pipelines, facts and deal
 * versions, every member, team, target, forecast call and owner link (the demo's, and whatever
 * was made on it meanwhile), and its settings unless the user changed them (the forecast category
 * mappings, which name the demo's pipelines, go in any case). Runs under the import lease. Every
 * write goes through the models, so every instance drops what it kept of the demo. The snapshot
 * records go last: a removal cut short (a crash) still finds the database holding only the demo,
 * and the next import removes the rest.
 */
export async function removeDemo(settings: AccountSettings): Promise<void> {
  for (const model of [
    TargetModel,
    ForecastSubmissionModel,
    MemberModel,
    TeamModel,
    CrmOwnerLinkModel,
    PipelineFactsModel,
    PipelineModel,
    DefinitionModel,
    OpportunityModel,
    PrunedSnapshotModel,
  ] as const)
    await (model as typeof TargetModel).deleteMany({});
  if (settingsAfterDemo(settings).currency === null)
    await SettingsModel.deleteOne({ _id: SETTINGS_ID });
  else await SettingsModel.updateOne({ _id: SETTINGS_ID }, { $unset: { forecastCategories: 1 } });
  await SnapshotModel.deleteMany({});
}
