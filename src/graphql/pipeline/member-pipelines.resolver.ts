import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { AuthenticatedContext } from '../../context/request-context';
import { pipelinesOwnedBy } from '../../services/pipeline.service';
import { Member } from '../member/member.type';
import { Pipeline, toPipeline } from './pipeline.type';
import { listComplexity } from '../../security/field-costs';

/** Adds `Member.pipelines` to the members half's `Member` type. */
@Resolver(() => Member)
export class MemberPipelinesResolver {
  @FieldResolver(() => [Pipeline], {
    description:
      "The member's own sub-pipelines (one per definition they own deals in), latest snapshot.",
    complexity: listComplexity,
  })
  async pipelines(@Root() member: Member, @Ctx() ctx: AuthenticatedContext): Promise<Pipeline[]> {
    return (await pipelinesOwnedBy(ctx, { memberId: member.id })).map(toPipeline);
  }
}
