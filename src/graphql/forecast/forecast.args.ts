import {
  ArrayMaxSize,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { Type } from 'class-transformer';
import { ArgsType, Field, Float, ID, InputType, Int } from 'type-graphql';
import { MAX_NOTE_LENGTH, MAX_SUBMISSIONS_PAGE } from '../../services/forecasts/submission.service';
import { IsEntityId } from '../../validation/rules';
import { CadenceEveryValue, ForecastCategoryValue } from './forecast-category.enum';

const PERIOD =
  'The period with its year in the configured unit: `2026-Q4`, `2026-m11`, `2026-w47`.';
const SCOPE = '`company`, `team:<team id>` or `member:<member id>`.';

@ArgsType()
export class ForecastArgs {
  @Field(() => String, { nullable: true, description: `${PERIOD} Default: the current period.` })
  @IsOptional()
  @IsString()
  @MaxLength(16)
  period?: string | null;

  @Field(() => String, {
    nullable: true,
    description: `${SCOPE} Default: the caller's own (an admin: the company, a manager: their team).`,
  })
  @IsOptional()
  @IsString()
  @MaxLength(140)
  scope?: string | null;
}

@ArgsType()
export class MemberForecastArgs {
  @Field(() => String, { nullable: true, description: `${PERIOD} Default: the current period.` })
  @IsOptional()
  @IsString()
  @MaxLength(16)
  period?: string | null;
}

@ArgsType()
export class ForecastSubmissionsArgs extends ForecastArgs {
  @Field(() => Int, { defaultValue: 20, description: `1–${MAX_SUBMISSIONS_PAGE}.` })
  @IsInt()
  @Min(1)
  @Max(MAX_SUBMISSIONS_PAGE)
  first: number = 20;

  @Field(() => String, { nullable: true, description: 'An `endCursor` of a previous page.' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  after?: string | null;
}

@InputType({ description: 'A forecast call; the same rules as POST /forecasts/submissions.' })
export class SubmitForecastInput {
  @Field({ description: PERIOD })
  @IsString()
  @MaxLength(16)
  period!: string;

  @Field(() => Float, { description: 'The amount called, in the configured currency.' })
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  call!: number;

  @Field(() => Float, { nullable: true })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  bestCase?: number | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_NOTE_LENGTH)
  note?: string | null;

  @Field(() => String, {
    nullable: true,
    description: `${SCOPE} Default: the company for an admin, else the caller's own call.`,
  })
  @IsOptional()
  @IsString()
  @MaxLength(140)
  scope?: string | null;
}

@ArgsType()
export class SetForecastCadenceArgs {
  @Field(() => CadenceEveryValue)
  @IsIn([CadenceEveryValue.WEEK, CadenceEveryValue.MONTH])
  every!: CadenceEveryValue;

  @Field({ description: '`monday`..`sunday` every week; `1`..`28` every month.' })
  @IsString()
  @MaxLength(16)
  day!: string;
}

@ArgsType()
export class ForecastCategoryMappingArgs {
  @Field(() => ID)
  @IsEntityId()
  pipelineDefinitionId!: string;
}

@InputType()
export class StageForecastCategoryInput {
  @Field(() => ID)
  @IsEntityId()
  stageId!: string;

  @Field(() => ForecastCategoryValue, { description: 'PIPELINE, BEST_CASE, COMMIT or OMITTED.' })
  category!: ForecastCategoryValue;
}

@InputType({ description: 'The same rules as PUT /settings/forecast-categories.' })
export class SetForecastCategoryMappingInput {
  @Field(() => ID)
  @IsEntityId()
  pipelineDefinitionId!: string;

  @Field(() => [StageForecastCategoryInput])
  @ArrayMaxSize(200)
  @ValidateNested({ each: true })
  @Type(() => StageForecastCategoryInput)
  stages!: StageForecastCategoryInput[];
}
