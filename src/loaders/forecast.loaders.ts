import DataLoader from 'dataloader';
import { trusted } from 'mongoose';
import type { LoaderSource } from './lazy-loaders';
import type { ForecastCall } from '../domain/forecast-calls';
import {
  ForecastSubmissionModel,
  type ForecastSubmissionDoc,
} from '../models/forecast-submission.model';
import { SETTINGS_ID, SettingsModel, type SettingsDoc } from '../models/settings.model';
import { TeamModel, type TeamDoc } from '../models/team.model';

/** The key of the all-teams loader: it has one value per request. */
export const ALL = 'all';

/** A stored call as forecasts read it. */
export function callOf(doc: ForecastSubmissionDoc): ForecastCall {
  return {
    id: doc._id,
    period: doc.period,
    scope: doc.scope,
    call: doc.call,
    bestCase: doc.bestCase ?? null,
    note: doc.note ?? null,
    submittedAt: new Date(doc.submittedAt),
    submittedBy: {
      subject: doc.submittedBy.subject,
      memberId: doc.submittedBy.memberId ?? null,
      role: doc.submittedBy.role,
    },
  };
}

/**
 * Loader factories of the forecasts: the settings document (cadence and category mappings), every
 * team, and the calls of a period, each through the app's version-checked caches (DataAccess), so
 * a forecast read after none of them changed reads none of them from the database.
 */
export const forecastLoaders = {
  /** The settings document as stored, or null before anything was set. */
  accountSettings: ({ access, data }: LoaderSource) =>
    new DataLoader<typeof SETTINGS_ID, SettingsDoc | null>(async (keys) => {
      const doc = await access.settings.get(data, SETTINGS_ID, () =>
        SettingsModel.findById(SETTINGS_ID).lean<SettingsDoc>().exec(),
      );
      return keys.map(() => doc);
    }),
  /** Every team, in id order. */
  allTeams: ({ access, data }: LoaderSource) =>
    new DataLoader<typeof ALL, TeamDoc[]>(async (keys) => {
      const teams = await access.allTeams.get(data, ALL, () =>
        TeamModel.find({}).sort({ _id: 1 }).lean<TeamDoc[]>().exec(),
      );
      return keys.map(() => teams);
    }),
  /** The calls of each period (by name), in counting order. One query for the misses. */
  forecastCalls: ({ access, data }: LoaderSource) =>
    new DataLoader<string, ForecastCall[]>((periods) =>
      access.forecastCalls.getMany(data, periods, String, async (missing) => {
        const docs = await ForecastSubmissionModel.find({ period: trusted({ $in: missing }) })
          .sort({ submittedAt: 1, _id: 1 })
          .lean<ForecastSubmissionDoc[]>()
          .exec();
        return missing.map((period) => docs.filter((d) => d.period === period).map(callOf));
      }),
    ),
};
