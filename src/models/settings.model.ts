import { Schema, model } from 'mongoose';
import { PERIOD_UNITS, PeriodUnit } from '../domain/period';
import { versionedScope } from '../data/versions-document';
import { carriesEvents } from '../events/outbox/carries-events.plugin';

/** The `_id` of the one settings document: settings are account-wide. */
export const SETTINGS_ID = 'account';

/** Account settings: the currency of targets and money metrics, and the period unit. */
export interface SettingsDoc {
  _id: string;
  /** ISO 4217 alphabetic code, upper-case. Absent until set. */
  currency?: string | null;
  /** Absent until set. */
  period?: PeriodUnit | null;
  updatedAt: Date;
}

const settingsSchema = new Schema<SettingsDoc>(
  {
    _id: { type: String, default: SETTINGS_ID },
    currency: { type: String },
    period: { type: String, enum: PERIOD_UNITS },
  },
  { collection: 'settings', timestamps: { createdAt: false, updatedAt: true }, versionKey: false },
);

// Every write bumps the 'settings' version counter, which caches of it are checked against.
settingsSchema.plugin(versionedScope('settings'));
// Its writes carry the events they cause (src/events/outbox).
settingsSchema.plugin(carriesEvents());

export const SettingsModel = model<SettingsDoc>('Settings', settingsSchema);
