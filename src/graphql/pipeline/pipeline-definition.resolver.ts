import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { AuthenticatedContext } from '../../context/request-context';
import { pipelinesOfDefinition } from '../../services/pipeline.service';
import { PipelineDefinition } from './pipeline-definition.type';
import { Pipeline, toPipeline } from './pipeline.type';
import { listComplexity } from '../../security/field-costs';

@Resolver(() => PipelineDefinition)
export class PipelineDefinitionResolver {
  @FieldResolver(() => [Pipeline], {
    description: 'The complete pipeline first, then one per team, then one per member.',
    complexity: listComplexity,
  })
  async pipelines(
    @Root() definition: PipelineDefinition,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<Pipeline[]> {
    return (await pipelinesOfDefinition(ctx, definition.snapshotId, definition.id)).map(toPipeline);
  }
}
