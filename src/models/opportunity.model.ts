import { InferSchemaType, Schema, model, trusted } from 'mongoose';
import {
  FORECAST_CATEGORIES,
  FORECAST_CATEGORY_SOURCES,
  type ForecastCategory,
  type ForecastCategorySource,
} from '../domain/forecast-category';
import type { CloseChange, StageEntry } from '../domain/deal-history';

export type Outcome = 'open' | 'won' | 'lost';

export const OUTCOMES: readonly Outcome[] = ['open', 'won', 'lost'];

/** The `toSeq` of a version still valid: later than any snapshot's seq. */
export const OPEN_SEQ = Number.MAX_SAFE_INTEGER;

/**
 * One state of a HubSpot deal and the span of snapshots it holds in: every snapshot whose `seq`
 * is in [fromSeq, toSeq). An import writes a new version only for a deal whose state changed, and
 * closes the version it replaces (toSeq = the import's seq); a deal that left has its version
 * closed. Only deals that count are stored (a pipeline and a stage in it); the rest are in the
 * snapshot's `skipped`. `_id` is `<dealId>@<fromSeq>`.
 */
const opportunitySchema = new Schema(
  {
    _id: { type: String, required: true },
    dealId: { type: String, required: true },
    fromSeq: { type: Number, required: true },
    /** Exclusive; OPEN_SEQ while the version is the deal's latest state. */
    toSeq: { type: Number, required: true },
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
    /** What the CRM said the forecast category was (null: nothing, or a backfilled state). */
    crmForecastCategory: { type: String, enum: [...FORECAST_CATEGORIES, null], default: null },
    /**
     * The category this state had when it was imported, and the rule that gave it
     * (docs/forecasts.md); null on versions stored before forecast categories existed.
     */
    forecastCategory: { type: String, enum: [...FORECAST_CATEGORIES, null], default: null },
    forecastCategorySource: {
      type: String,
      enum: [...FORECAST_CATEGORY_SOURCES, null],
      default: null,
    },
    /** Every entry into a stage up to this version's first snapshot (domain/deal-history.ts). */
    stageHistory: {
      type: [new Schema({ stageId: String, at: Date }, { _id: false })],
      default: undefined,
    },
    /** Every close date the deal had since it first appeared, with when it was seen. */
    closeHistory: {
      type: [new Schema({ at: Date, closedAt: Date }, { _id: false })],
      default: undefined,
    },
  },
  { collection: 'opportunity_versions', versionKey: false },
);

// A snapshot's versions (facts building, an import's base, the open versions an import replaces).
opportunitySchema.index({ toSeq: 1, fromSeq: 1 });
// Pages of a pipeline's opportunities by deal id: complete, team and member pipelines.
opportunitySchema.index({ definitionId: 1, dealId: 1 });
opportunitySchema.index({ memberId: 1, dealId: 1 });
opportunitySchema.index({ teamId: 1, dealId: 1 });

export type OpportunityDoc = InferSchemaType<typeof opportunitySchema> & {
  _id: string;
  outcome: Outcome;
  memberId: string | null;
  teamId: string | null;
  createdAt: Date | null;
  closedAt: Date | null;
  crmForecastCategory: ForecastCategory | null;
  forecastCategory: ForecastCategory | null;
  forecastCategorySource: ForecastCategorySource | null;
  stageHistory?: StageEntry[];
  closeHistory?: CloseChange[];
};

/** The filter of the versions a snapshot holds: fromSeq ≤ seq < toSeq. */
export function heldAt(seq: number): Record<string, unknown> {
  // trusted(): the operators are ours, `seq` comes from a snapshot document.
  return { fromSeq: trusted({ $lte: seq }), toSeq: trusted({ $gt: seq }) };
}

export const OpportunityModel = model('Opportunity', opportunitySchema);
