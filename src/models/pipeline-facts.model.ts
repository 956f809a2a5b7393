import { Schema, model } from 'mongoose';
import type { DayBucket, PipelineFacts } from '../domain/pipeline-facts';

/**
 * Precomputed aggregates of one pipeline in one snapshot (see `domain/pipeline-facts.ts`).
 * `_id` is `<snapshotId>:<pipelineId>`, so reads are by primary key. Written by
 * `buildPipelineFacts()` before the snapshot is committed; immutable afterwards. The day buckets
 * are stored packed (`packedDays`, packed-day-buckets.ts): they are most of a snapshot's bytes.
 * Facts written before packing have them in `days`, and read the same.
 */
export type PipelineFactsDoc = Omit<PipelineFacts, 'days' | 'forecastDays'> & {
  _id: string;
  packedDays?: Buffer;
  /** The forecast days, packed (packed-forecast-days.ts); absent on facts built before forecasts. */
  packedForecastDays?: Buffer;
  days?: DayBucket[];
};

const dayBucketSchema = new Schema(
  {
    d: { type: Number, required: true },
    wonCount: { type: Number, required: true },
    wonAmount: { type: Number, required: true },
    lostCount: { type: Number, required: true },
    cycleCount: { type: Number, required: true },
    cycleDays: { type: Number, required: true },
    openAmount: { type: Number, required: true },
  },
  { _id: false },
);

const pipelineFactsSchema = new Schema<PipelineFactsDoc>(
  {
    _id: { type: String, required: true },
    snapshotId: { type: String, required: true },
    pipelineId: { type: String, required: true },
    definitionId: { type: String, required: true },
    kind: { type: String, enum: ['complete', 'team', 'member'], required: true },
    teamId: { type: String, default: null },
    memberId: { type: String, default: null },
    snapshotAt: { type: Date, required: true },
    year: { type: Number, required: true },
    openCount: { type: Number, required: true },
    openAmount: { type: Number, required: true },
    openWeighted: { type: Number, required: true },
    memberIds: { type: [String], default: [] },
    packedDays: { type: Buffer },
    packedForecastDays: { type: Buffer },
    days: { type: [dayBucketSchema], default: undefined },
  },
  { collection: 'pipeline_facts', versionKey: false },
);

// Re-imports and clean-ups remove a snapshot's facts at once.
pipelineFactsSchema.index({ snapshotId: 1 });

export const PipelineFactsModel = model<PipelineFactsDoc>('PipelineFacts', pipelineFactsSchema);
