import { InferSchemaType, Schema, model } from 'mongoose';

/** `complete`: every opportunity of a definition; `team` / `member`: the sub-pipelines. */
export type PipelineKind = 'complete' | 'team' | 'member';

export const PIPELINE_KINDS: readonly PipelineKind[] = ['complete', 'team', 'member'];

/** Stable pipeline ids, the same in every snapshot: `<def>`, `<def>.team.<teamId>`, `<def>.member.<memberId>`. */
export function pipelineIdOf(
  definitionId: string,
  kind: PipelineKind,
  ownerId: string | null = null,
): string {
  switch (kind) {
    case 'complete':
      return definitionId;
    case 'team':
    case 'member':
      if (!ownerId)
        throw new TypeError(`a ${kind} pipeline id needs a ${kind} id, got ${String(ownerId)}`);
      return `${definitionId}.${kind}.${ownerId}`;
  }
}

/**
 * One pipeline of one snapshot. `_id` is `<snapshotId>:<pipelineId>`. Per definition there is the
 * complete pipeline, one per team whose members own opportunities in it and one per such member.
 */
const pipelineSchema = new Schema(
  {
    _id: { type: String, required: true },
    snapshotId: { type: String, required: true },
    pipelineId: { type: String, required: true },
    definitionId: { type: String, required: true },
    kind: { type: String, enum: PIPELINE_KINDS as PipelineKind[], required: true },
    teamId: { type: String, default: null },
    memberId: { type: String, default: null },
    isSubPipeline: { type: Boolean, required: true },
  },
  { collection: 'pipelines', versionKey: false },
);

pipelineSchema.index({ snapshotId: 1, definitionId: 1 });

export type PipelineDoc = InferSchemaType<typeof pipelineSchema> & {
  _id: string;
  kind: PipelineKind;
  teamId: string | null;
  memberId: string | null;
};

export const PipelineModel = model('Pipeline', pipelineSchema);
