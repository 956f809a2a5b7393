import { randomUUID } from 'node:crypto';
import { Schema, model } from 'mongoose';
import { PERIOD_UNITS, PeriodUnit } from '../domain/period';
import { versionedScope } from '../data/versions-document';
import { carriesEvents } from '../events/outbox/carries-events.plugin';

/**
 * One member's targets for one year. `period` and `currency` are copied from the settings when the
 * targets are set, so a stored set stays self-describing.
 */
export interface TargetDoc {
  _id: string;
  memberId: string;
  year: number;
  period: PeriodUnit;
  currency: string;
  /** One amount per period of `period` (4, 12 or 52), in time order. */
  amounts: number[];
  updatedAt: Date;
}

const targetSchema = new Schema<TargetDoc>(
  {
    _id: { type: String, default: () => randomUUID() },
    memberId: { type: String, required: true },
    year: { type: Number, required: true },
    period: { type: String, enum: PERIOD_UNITS, required: true },
    currency: { type: String, required: true },
    amounts: { type: [Number], required: true },
  },
  { collection: 'targets', timestamps: { createdAt: false, updatedAt: true }, versionKey: false },
);

targetSchema.index({ memberId: 1, year: 1 }, { unique: true });

// Every write bumps the 'targets' version counter, which caches of it are checked against.
targetSchema.plugin(versionedScope('targets'));
// Its writes carry the events they cause (src/events/outbox).
targetSchema.plugin(carriesEvents());

export const TargetModel = model<TargetDoc>('Target', targetSchema);
