import { Field, Float, ID, ObjectType, registerEnumType } from 'type-graphql';
import type { OpportunityView } from '../../services/pipeline.service';
import {
  ForecastCategorySourceValue,
  ForecastCategoryValue,
} from '../forecast/forecast-category.enum';

export enum OpportunityOutcome {
  OPEN = 'open',
  WON = 'won',
  LOST = 'lost',
}

registerEnumType(OpportunityOutcome, {
  name: 'OpportunityOutcome',
  description:
    'WON: closed stage with probability 1; LOST: closed with any other probability; OPEN: stage not closed.',
});

/** A CRM deal in one snapshot. `stage`, `member` and `team` are field resolvers. */
@ObjectType({
  simpleResolvers: true,
  description: 'An opportunity (CRM deal) as it stood in one snapshot.',
})
export class Opportunity {
  @Field(() => ID, { description: 'The CRM deal id.' })
  id!: string;

  @Field()
  name!: string;

  @Field(() => Float, { description: 'Missing or empty in the CRM: 0.' })
  amount!: number;

  @Field(() => OpportunityOutcome)
  outcome!: OpportunityOutcome;

  @Field(() => Date, { nullable: true })
  createdAt!: Date | null;

  @Field(() => Date, {
    nullable: true,
    description: 'Actual close date when closed, expected one when open.',
  })
  closedAt!: Date | null;

  @Field(() => ForecastCategoryValue, {
    nullable: true,
    description:
      'Its forecast category in this snapshot, as decided when the snapshot was imported; null in snapshots imported before categories existed.',
  })
  forecastCategory!: ForecastCategoryValue | null;

  @Field(() => ForecastCategorySourceValue, { nullable: true })
  forecastCategorySource!: ForecastCategorySourceValue | null;

  /** Not GraphQL fields: what the field resolvers need. */
  snapshotId!: string;
  definitionId!: string;
  stageId!: string;
  memberId!: string | null;
  teamId!: string | null;
}

export function toOpportunity(view: OpportunityView): Opportunity {
  return {
    ...view,
    outcome: view.outcome as OpportunityOutcome,
    forecastCategory: view.forecastCategory as ForecastCategoryValue | null,
    forecastCategorySource: view.forecastCategorySource as ForecastCategorySourceValue | null,
  };
}
