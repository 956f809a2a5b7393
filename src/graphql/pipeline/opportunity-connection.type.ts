import { Field, ObjectType } from 'type-graphql';
import { PageInfo } from '../member/page-info.type';
import { Opportunity } from './opportunity.type';
import { countedListComplexity } from '../../security/field-costs';

@ObjectType({ simpleResolvers: true })
export class OpportunityEdge {
  @Field({ description: 'Opaque; pass as `after` to read the opportunities after this one.' })
  cursor!: string;

  @Field(() => Opportunity)
  node!: Opportunity;
}

@ObjectType({ simpleResolvers: true, description: 'A page of opportunities in deal-id order.' })
export class OpportunityConnection {
  @Field(() => [OpportunityEdge], { complexity: countedListComplexity })
  edges!: OpportunityEdge[];

  @Field(() => PageInfo)
  pageInfo!: PageInfo;
}
