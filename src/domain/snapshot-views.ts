import type { PipelineKind } from '../models/pipeline.model';

/** What the graph and the services see of committed snapshots (read through DataAccess's SnapshotCache). */
export interface SnapshotView {
  id: string;
  snapshotAt: Date;
}

export interface StageView {
  id: string;
  label: string;
  order: number;
  isClosed: boolean;
  probability: number;
}

export interface DefinitionView {
  snapshotId: string;
  /** The HubSpot pipeline id: `pipeline_definition_id`. */
  id: string;
  label: string;
  displayOrder: number;
  stages: StageView[];
}

export interface PipelineView {
  snapshotId: string;
  /** Stable id: `<def>`, `<def>.team.<teamId>`, `<def>.member.<memberId>`. */
  id: string;
  definitionId: string;
  kind: PipelineKind;
  teamId: string | null;
  memberId: string | null;
  isSubPipeline: boolean;
}
