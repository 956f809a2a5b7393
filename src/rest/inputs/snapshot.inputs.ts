import { IsEntityId } from '../../validation';

/** `DEL /pipelines/snapshots/{snapshot_id}`. */
export class SnapshotIdInput {
  @IsEntityId()
  snapshot_id!: string;
}
