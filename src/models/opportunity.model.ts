import { InferSchemaType, Schema, model } from 'mongoose';

export type Outcome = 'open' | 'won' | 'lost';

export const OUTCOMES: readonly Outcome[] = ['open', 'won', 'lost'];

/**
 * One HubSpot deal as it stood in one snapshot. Only deals that count are stored (a pipeline and
 * a stage in it); the rest are in the snapshot's `skipped`. `_id` is `<snapshotId>:<dealId>`.
 */
const opportunitySchema = new Schema(
  {
    _id: { type: String, required: true },
    snapshotId: { type: String, required: true },
    dealId: { type: String, required: true },
    name: { type: String, default: '' },
    definitionId: { type: String, required: true },
    stageId: { type: String, required: true },
    /** Missing or empty amount → 0. */
    amount: { type: Number, required: true },
    memberId: { type: String, default: null },
    teamId: { type: String, default: null },
    createdAt: { type: Date, default: null },
    /** Close date: the actual one for won/lost deals, the expected one for open deals. */
    closedAt: { type: Date, default: null },
    outcome: { type: String, enum: OUTCOMES as Outcome[], required: true },
  },
  { collection: 'opportunities', versionKey: false },
);

opportunitySchema.index({ snapshotId: 1, definitionId: 1, stageId: 1 });
opportunitySchema.index({ snapshotId: 1, memberId: 1 });
opportunitySchema.index({ snapshotId: 1, teamId: 1 });

export type OpportunityDoc = InferSchemaType<typeof opportunitySchema> & {
  _id: string;
  outcome: Outcome;
  memberId: string | null;
  teamId: string | null;
  createdAt: Date | null;
  closedAt: Date | null;
};

export const OpportunityModel = model('Opportunity', opportunitySchema);
