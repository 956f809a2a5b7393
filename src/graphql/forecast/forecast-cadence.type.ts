import { Field, ID, ObjectType } from 'type-graphql';
import type { ForecastCadence as CadenceView } from '../../domain/forecast-cadence';
import type { StageCategoryMapping } from '../../domain/forecast-category';
import { listComplexity } from '../../security/field-costs';
import { CadenceEveryValue, ForecastCategoryValue } from './forecast-category.enum';

@ObjectType({ simpleResolvers: true, description: 'When forecast calls are due.' })
export class ForecastCadence {
  @Field(() => CadenceEveryValue)
  every!: CadenceEveryValue;

  @Field({ description: '`monday`..`sunday` every week, `1`..`28` every month.' })
  day!: string;
}

export function toCadence(cadence: CadenceView): ForecastCadence {
  return { every: cadence.every as CadenceEveryValue, day: String(cadence.day) };
}

@ObjectType({ simpleResolvers: true })
export class StageForecastCategory {
  @Field(() => ID)
  stageId!: string;

  @Field(() => ForecastCategoryValue)
  category!: ForecastCategoryValue;
}

@ObjectType({
  simpleResolvers: true,
  description:
    "An admin's stage → category mapping of one pipeline definition, which imports apply to deals the CRM gives no category.",
})
export class ForecastCategoryMapping {
  @Field(() => ID)
  pipelineDefinitionId!: string;

  @Field(() => [StageForecastCategory], { complexity: listComplexity })
  stages!: StageForecastCategory[];
}

export function toMapping(mapping: StageCategoryMapping): ForecastCategoryMapping {
  return {
    pipelineDefinitionId: mapping.definitionId,
    stages: mapping.stages.map((s) => ({
      stageId: s.stageId,
      category: s.category as ForecastCategoryValue,
    })),
  };
}
