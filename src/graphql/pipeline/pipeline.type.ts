import { Field, ID, ObjectType } from 'type-graphql';
import type { PipelineView } from '../../domain/snapshot-views';
import { PipelineKind, toPipelineKind } from './pipeline-kind.enum';

/**
 * A pipeline of one snapshot. `definition`, `team`, `member`, `metrics`, `timeseries` and
 * `opportunities` are field resolvers (pipeline.resolver.ts) backed by loaders.
 */
@ObjectType({
  simpleResolvers: true,
  description:
    'A complete pipeline or a sub-pipeline (one team, one member) of a definition, in one snapshot.',
})
export class Pipeline {
  @Field(() => ID, {
    description:
      'Stable across snapshots: `<definition>`, `<definition>.team.<teamId>`, `<definition>.member.<memberId>`.',
  })
  id!: string;

  @Field()
  isSubPipeline!: boolean;

  @Field(() => PipelineKind)
  kind!: PipelineKind;

  /** Not GraphQL fields: what the field resolvers need. */
  snapshotId!: string;
  definitionId!: string;
  teamId!: string | null;
  memberId!: string | null;
}

export function toPipeline(view: PipelineView): Pipeline {
  return { ...view, kind: toPipelineKind(view.kind) };
}
