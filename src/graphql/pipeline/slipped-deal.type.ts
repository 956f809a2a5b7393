import { Field, Float, ID, Int, ObjectType } from 'type-graphql';
import type { PipelineSlippedDeals } from '../../services/analytics/slipped-deals.service';
import { countedListComplexity } from '../../security/field-costs';
import { PageInfo } from '../member/page-info.type';
import { PipelineSnapshot, toPipelineSnapshot } from './pipeline-snapshot.type';
import { encodeCursor } from '../../services/pipeline-cursor';

@ObjectType({
  simpleResolvers: true,
  description: 'An open deal whose close date moved later at least once (docs/analytics.md).',
})
export class SlippedDeal {
  @Field(() => ID)
  dealId!: string;

  @Field()
  name!: string;

  @Field(() => ID, { nullable: true })
  ownerMemberId!: string | null;

  @Field(() => ID)
  stageId!: string;

  @Field(() => Float)
  amount!: number;

  @Field(() => Int)
  timesPushed!: number;

  @Field(() => Int, { nullable: true, description: 'Days from closeDateFirst to closeDateNow.' })
  daysPushed!: number | null;

  @Field(() => String, {
    nullable: true,
    description: 'YYYY-MM-DD, at `from` (or when it appeared).',
  })
  closeDateFirst!: string | null;

  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD, at `to`.' })
  closeDateNow!: string | null;
}

@ObjectType({ simpleResolvers: true })
export class SlippedDealEdge {
  @Field({ description: 'Opaque; pass as `after` to read the deals after this one.' })
  cursor!: string;

  @Field(() => SlippedDeal)
  node!: SlippedDeal;
}

@ObjectType({
  simpleResolvers: true,
  description: 'A page of slipped deals, the most days pushed first, then by deal id.',
})
export class SlippedDealConnection {
  @Field(() => Int, { description: 'Slipped deals, all pages.' })
  totalCount!: number;

  @Field(() => PipelineSnapshot)
  from!: PipelineSnapshot;

  @Field(() => PipelineSnapshot)
  to!: PipelineSnapshot;

  @Field(() => [SlippedDealEdge], { complexity: countedListComplexity })
  edges!: SlippedDealEdge[];

  @Field(() => PageInfo)
  pageInfo!: PageInfo;
}

export function toSlippedDealConnection(answer: PipelineSlippedDeals): SlippedDealConnection {
  return {
    totalCount: answer.totalCount,
    from: toPipelineSnapshot(answer.from),
    to: toPipelineSnapshot(answer.to),
    edges: answer.nodes.map((node) => ({
      cursor: encodeCursor('d', `${node.daysPushed ?? ''}|${node.dealId}`),
      node: { ...node },
    })),
    pageInfo: { hasNextPage: answer.hasNextPage, endCursor: answer.endCursor },
  };
}
