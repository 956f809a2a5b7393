import { Field, Float, ID, ObjectType } from 'type-graphql';
import type { ForecastCall } from '../../domain/forecast-calls';
import { listComplexity } from '../../security/field-costs';
import { PageInfo } from '../member/page-info.type';
import { Role } from '../member/role.enum';

@ObjectType({ simpleResolvers: true, description: 'Who submitted a call.' })
export class ForecastSubmitter {
  @Field(() => ID, { nullable: true, description: 'Null for the bootstrap admin token.' })
  memberId!: string | null;

  @Field(() => Role)
  role!: Role;
}

@ObjectType({
  simpleResolvers: true,
  description: 'One forecast call, as submitted; every call is kept, the latest counts.',
})
export class ForecastSubmission {
  @Field(() => ID)
  id!: string;

  @Field()
  period!: string;

  @Field({ description: '`company`, `team:<id>` or `member:<id>`.' })
  scope!: string;

  @Field(() => Float)
  call!: number;

  @Field(() => Float, { nullable: true })
  bestCase!: number | null;

  @Field(() => String, { nullable: true })
  note!: string | null;

  @Field(() => Date, { description: 'The forecast clock when it was submitted.' })
  submittedAt!: Date;

  @Field(() => ForecastSubmitter)
  submittedBy!: ForecastSubmitter;
}

@ObjectType({ simpleResolvers: true, description: 'A page of calls, newest first.' })
export class ForecastSubmissionPage {
  @Field(() => [ForecastSubmission], { complexity: listComplexity })
  nodes!: ForecastSubmission[];

  @Field(() => PageInfo)
  pageInfo!: PageInfo;
}

export function toSubmission(call: ForecastCall): ForecastSubmission {
  return {
    id: call.id,
    period: call.period,
    scope: call.scope,
    call: call.call,
    bestCase: call.bestCase,
    note: call.note,
    submittedAt: call.submittedAt,
    submittedBy: { memberId: call.submittedBy.memberId, role: call.submittedBy.role as Role },
  };
}
