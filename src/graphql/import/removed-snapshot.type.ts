import { Field, ID, ObjectType } from 'type-graphql';
import type { RemovedSnapshot } from '../../services/import.service';
import { PipelineSnapshot, toPipelineSnapshot } from '../pipeline/pipeline-snapshot.type';

@ObjectType('RemovedSnapshot', {
  simpleResolvers: true,
  description: 'A snapshot an admin removed, and the latest one left.',
})
export class RemovedSnapshotType {
  @Field(() => ID, { description: 'The snapshot removed: reading it now answers NOT_FOUND.' })
  id!: string;

  @Field({ description: 'The moment the removed snapshot represented.' })
  createdAt!: Date;

  @Field(() => PipelineSnapshot, {
    nullable: true,
    description:
      'The latest snapshot left, which reads naming no snapshot now see; null when none is left.',
  })
  latest!: PipelineSnapshot | null;
}

export function toRemovedSnapshot(removed: RemovedSnapshot): RemovedSnapshotType {
  return {
    id: removed.snapshotId,
    createdAt: removed.snapshotAt,
    latest: removed.latest
      ? toPipelineSnapshot({ id: removed.latest.snapshotId, snapshotAt: removed.latest.snapshotAt })
      : null,
  };
}
