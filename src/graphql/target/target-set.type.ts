import { Field, Float, ID, Int, ObjectType } from 'type-graphql';
import { Period } from '../settings/period.enum';
import { listComplexity } from '../../security/field-costs';

@ObjectType({ simpleResolvers: true, description: 'The target for one period.' })
export class TargetAmount {
  @Field({ description: '`Q1`, `m7`, `w27`.' })
  period!: string;

  @Field(() => Float, { description: 'In the set’s currency.' })
  amount!: number;
}

@ObjectType({
  simpleResolvers: true,
  description: "One member's targets for one year, one amount per period in time order.",
})
export class TargetSet {
  @Field(() => ID)
  memberId!: string;

  @Field(() => Int)
  year!: number;

  @Field(() => Period, { description: 'The period unit in force when the targets were set.' })
  period!: Period;

  @Field({ description: 'The currency in force when the targets were set.' })
  currency!: string;

  @Field(() => [TargetAmount], { complexity: listComplexity })
  targets!: TargetAmount[];
}
