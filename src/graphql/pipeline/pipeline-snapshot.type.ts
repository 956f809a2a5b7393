import { Field, ID, ObjectType } from 'type-graphql';
import type { SnapshotView } from '../../domain/snapshot-views';
import { PageInfo } from '../member/page-info.type';
import { countedListComplexity } from '../../security/field-costs';

/** A committed pipeline snapshot. `definitions` is a field resolver. */
@ObjectType({
  simpleResolvers: true,
  description: 'A committed, immutable snapshot of the CRM pipelines.',
})
export class PipelineSnapshot {
  @Field(() => ID)
  id!: string;

  @Field({ description: 'The moment the snapshot represents (REST `created_at`).' })
  createdAt!: Date;
}

export function toPipelineSnapshot(view: SnapshotView): PipelineSnapshot {
  return { id: view.id, createdAt: view.snapshotAt };
}

@ObjectType({ simpleResolvers: true })
export class PipelineSnapshotEdge {
  @Field({ description: 'Opaque; pass as `after` to read the snapshots after this one.' })
  cursor!: string;

  @Field(() => PipelineSnapshot)
  node!: PipelineSnapshot;
}

@ObjectType({ simpleResolvers: true, description: 'A page of snapshots, newest first.' })
export class PipelineSnapshotConnection {
  @Field(() => [PipelineSnapshotEdge], { complexity: countedListComplexity })
  edges!: PipelineSnapshotEdge[];

  @Field(() => PageInfo)
  pageInfo!: PageInfo;
}
