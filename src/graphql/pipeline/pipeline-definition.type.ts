import { Field, ID, ObjectType } from 'type-graphql';
import type { DefinitionView } from '../../domain/snapshot-views';
import { Stage } from './stage.type';
import { listComplexity } from '../../security/field-costs';

/** A CRM pipeline definition (HubSpot deal pipeline) in one snapshot. `pipelines` is a field resolver. */
@ObjectType({
  simpleResolvers: true,
  description: 'A pipeline definition (a CRM deal pipeline) with its stages, in one snapshot.',
})
export class PipelineDefinition {
  @Field(() => ID, { description: 'The CRM pipeline id (REST `pipeline_definition_id`).' })
  id!: string;

  @Field()
  label!: string;

  @Field(() => [Stage], { description: 'Ordered by `order`.', complexity: listComplexity })
  stages!: Stage[];

  /** Not a GraphQL field: the snapshot the definition belongs to. */
  snapshotId!: string;
}

export function toPipelineDefinition(view: DefinitionView): PipelineDefinition {
  return { id: view.id, label: view.label, stages: view.stages, snapshotId: view.snapshotId };
}
