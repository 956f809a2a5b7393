import { InferSchemaType, Schema, model } from 'mongoose';

/** One stage of a definition, as HubSpot describes it (metadata trusted over labels). */
const stageSchema = new Schema(
  {
    id: { type: String, required: true },
    label: { type: String, required: true },
    /** HubSpot displayOrder, normalised to 0..n-1 in display order. */
    order: { type: Number, required: true },
    isClosed: { type: Boolean, required: true },
    /** 0..1; won = closed with probability 1. */
    probability: { type: Number, required: true },
  },
  { _id: false },
);

/**
 * A HubSpot deal pipeline ("pipeline definition") as it was in one snapshot.
 * `_id` is `<snapshotId>:<definitionId>`; `stages` are sorted by `order`.
 */
const definitionSchema = new Schema(
  {
    _id: { type: String, required: true },
    snapshotId: { type: String, required: true },
    /** HubSpot pipeline id, stable across snapshots. */
    definitionId: { type: String, required: true },
    label: { type: String, required: true },
    displayOrder: { type: Number, required: true },
    stages: { type: [stageSchema], default: [] },
  },
  { collection: 'pipeline_definitions', versionKey: false },
);

definitionSchema.index({ snapshotId: 1, displayOrder: 1 });

export type StageDoc = InferSchemaType<typeof stageSchema>;
export type DefinitionDoc = InferSchemaType<typeof definitionSchema> & {
  _id: string;
  stages: StageDoc[];
};

export const DefinitionModel = model('Definition', definitionSchema);
