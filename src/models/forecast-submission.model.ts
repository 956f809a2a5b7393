import { carriesEvents } from '../events/outbox/carries-events.plugin';
import { Schema, Types, model } from 'mongoose';
import { ROLES, type Role } from '../auth/role';
import { PERIOD_UNITS, type PeriodUnit } from '../domain/period';
import { versionedScope } from '../data/versions-document';

/** What a forecast call is for: one member, one team, or the company. */
export type ForecastScopeKind = 'member' | 'team' | 'company';

export const FORECAST_SCOPE_KINDS: readonly ForecastScopeKind[] = ['member', 'team', 'company'];

/**
 * One forecast call, as submitted: kept for good (the history), the latest of a period and scope
 * being the one that counts. `_id` is an ObjectId's hex, so that two calls of the same instant
 * still have an order (docs/forecasts.md).
 */
export interface ForecastSubmissionDoc {
  _id: string;
  /** `2026-Q4`, `2026-m11`, `2026-w47`: the period with its year, in `unit`. */
  period: string;
  unit: PeriodUnit;
  /** `member:<id>`, `team:<id>` or `company`. */
  scope: string;
  scopeKind: ForecastScopeKind;
  /** The member or team id; null for the company. */
  scopeId: string | null;
  call: number;
  bestCase: number | null;
  note: string | null;
  /** The forecast clock when it was submitted: the later of the server's clock and the latest snapshot's date. */
  submittedAt: Date;
  /** The server's clock when it was stored. */
  recordedAt: Date;
  /** Who submitted it: a member (on their own behalf or an admin's), or the admin token. */
  submittedBy: { subject: string; memberId: string | null; role: Role };
}

const submittedBySchema = new Schema(
  {
    subject: { type: String, required: true },
    memberId: { type: String, default: null },
    role: { type: String, enum: ROLES, required: true },
  },
  { _id: false },
);

const forecastSubmissionSchema = new Schema<ForecastSubmissionDoc>(
  {
    _id: { type: String, default: () => new Types.ObjectId().toHexString() },
    period: { type: String, required: true },
    unit: { type: String, enum: PERIOD_UNITS, required: true },
    scope: { type: String, required: true },
    scopeKind: { type: String, enum: FORECAST_SCOPE_KINDS, required: true },
    scopeId: { type: String, default: null },
    call: { type: Number, required: true },
    bestCase: { type: Number, default: null },
    note: { type: String, default: null },
    submittedAt: { type: Date, required: true },
    recordedAt: { type: Date, required: true },
    submittedBy: { type: submittedBySchema, required: true },
  },
  { collection: 'forecast_submissions', versionKey: false },
);

// A period's calls, in time order: what every forecast read of the period takes.
forecastSubmissionSchema.index({ period: 1, submittedAt: 1, _id: 1 });

// Every write bumps the 'forecast_submissions' version counter, which caches of it are checked against.
forecastSubmissionSchema.plugin(versionedScope('forecast_submissions'));
forecastSubmissionSchema.plugin(carriesEvents());

export const ForecastSubmissionModel = model<ForecastSubmissionDoc>(
  'ForecastSubmission',
  forecastSubmissionSchema,
);
