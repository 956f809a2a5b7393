import { Schema, model } from 'mongoose';
import { PERIOD_UNITS, PeriodUnit } from '../domain/period';
import { versionedScope } from '../data/versions-document';
import { carriesEvents } from '../events/outbox/carries-events.plugin';
import { CADENCE_EVERY, type ForecastCadence } from '../domain/forecast-cadence';
import { OPEN_FORECAST_CATEGORIES, type StageCategoryMapping } from '../domain/forecast-category';

/** The `_id` of the one settings document: settings are account-wide. */
export const SETTINGS_ID = 'account';

/** Account settings: the currency of targets and money metrics, and the period unit. */
export interface SettingsDoc {
  _id: string;
  /** ISO 4217 alphabetic code, upper-case. Absent until set. */
  currency?: string | null;
  /** Absent until set. */
  period?: PeriodUnit | null;
  /** When forecasts are due (PUT /settings/forecast-cadence). Absent until set. */
  forecastCadence?: ForecastCadence | null;
  /**
   * Stage → forecast category mappings by definition (PUT /settings/forecast-categories), each
   * under the hex of its definition id: a definition id may hold `.` or `$`, which a field name
   * may not.
   */
  forecastCategories?: Record<string, StageCategoryMapping> | null;
  updatedAt: Date;
}

/** The field of the settings document holding a definition's mapping. */
export function forecastMappingKey(definitionId: string): string {
  return Buffer.from(definitionId, 'utf8').toString('hex');
}

const cadenceSchema = new Schema(
  {
    every: { type: String, enum: CADENCE_EVERY, required: true },
    // A weekday name (week) or a day of the month (month).
    day: { type: Schema.Types.Mixed, required: true },
  },
  { _id: false },
);

const mappingSchema = new Schema(
  {
    definitionId: { type: String, required: true },
    stages: {
      type: [
        new Schema(
          {
            stageId: { type: String, required: true },
            category: { type: String, enum: OPEN_FORECAST_CATEGORIES, required: true },
          },
          { _id: false },
        ),
      ],
      default: [],
    },
  },
  { _id: false },
);

const settingsSchema = new Schema<SettingsDoc>(
  {
    _id: { type: String, default: SETTINGS_ID },
    currency: { type: String },
    period: { type: String, enum: PERIOD_UNITS },
    forecastCadence: { type: cadenceSchema },
    forecastCategories: { type: Map, of: mappingSchema },
  },
  { collection: 'settings', timestamps: { createdAt: false, updatedAt: true }, versionKey: false },
);

// Every write bumps the 'settings' version counter, which caches of it are checked against.
settingsSchema.plugin(versionedScope('settings'));
// Its writes carry the events they cause (src/events/outbox).
settingsSchema.plugin(carriesEvents());

export const SettingsModel = model<SettingsDoc>('Settings', settingsSchema);
