import { Field, Float, ID, Int, ObjectType } from 'type-graphql';
import type { PipelineStageAnalytics } from '../../services/analytics/stage-analytics.service';
import { countedListComplexity } from '../../security/field-costs';
import { PipelineSnapshot, toPipelineSnapshot } from './pipeline-snapshot.type';

@ObjectType({
  simpleResolvers: true,
  description:
    'The deals that entered one stage in the range, and what became of them (docs/analytics.md).',
})
export class StageFigures {
  @Field(() => ID)
  stageId!: string;

  @Field()
  label!: string;

  @Field(() => Int)
  entered!: number;

  @Field(() => Int, { description: 'Entered a stage of higher order later.' })
  advanced!: number;

  @Field(() => Int)
  won!: number;

  @Field(() => Int)
  lost!: number;

  @Field(() => Int)
  stillOpen!: number;

  @Field(() => Float, { nullable: true, description: 'advanced ÷ (advanced + lost) × 100.' })
  conversionRate!: number | null;

  @Field(() => Float, { nullable: true, description: 'won ÷ (won + lost) × 100.' })
  winRateFromStage!: number | null;

  @Field(() => Float, { nullable: true })
  medianDaysInStage!: number | null;

  @Field(() => Float, { nullable: true })
  averageDaysInStage!: number | null;
}

@ObjectType({ simpleResolvers: true })
export class StageAnalytics {
  @Field({ description: 'YYYY-MM-DD' })
  from!: string;

  @Field({ description: 'YYYY-MM-DD' })
  to!: string;

  @Field(() => PipelineSnapshot, {
    description: 'The snapshot read: the latest at or before the end of `to`.',
  })
  snapshot!: PipelineSnapshot;

  @Field(() => [StageFigures], { complexity: countedListComplexity })
  stages!: StageFigures[];
}

export function toStageAnalytics(answer: PipelineStageAnalytics): StageAnalytics {
  return {
    from: answer.from,
    to: answer.to,
    snapshot: toPipelineSnapshot(answer.snapshot),
    stages: answer.stages.map((s) => ({ ...s })),
  };
}
