import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { AuthenticatedContext } from '../../context/request-context';
import { pipelinesOwnedBy } from '../../services/pipeline.service';
import { Team } from '../team/team.type';
import { Pipeline, toPipeline } from './pipeline.type';
import { listComplexity } from '../../security/field-costs';

/** Adds `Team.pipelines` to the members half's `Team` type. */
@Resolver(() => Team)
export class TeamPipelinesResolver {
  @FieldResolver(() => [Pipeline], {
    description: "The team's sub-pipelines (one per definition it has deals in), latest snapshot.",
    complexity: listComplexity,
  })
  async pipelines(@Root() team: Team, @Ctx() ctx: AuthenticatedContext): Promise<Pipeline[]> {
    return (await pipelinesOwnedBy(ctx, { teamId: team.id })).map(toPipeline);
  }
}
