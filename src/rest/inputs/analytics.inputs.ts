import { IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { MOVEMENT_KINDS } from '../../domain/movement';
import { IsEntityId } from '../../validation';

const DAY_PATTERN = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MESSAGE = 'must be a date YYYY-MM-DD';

/** `from` and `to` of movement and slipped deals: a date `YYYY-MM-DD` or a snapshot id. */
export class AnalysisSpanInput {
  @IsEntityId()
  pipeline_id!: string;

  @IsEntityId()
  from!: string;

  @IsEntityId()
  to!: string;
}

/** `GET /pipelines/movement`. */
export class MovementInput extends AnalysisSpanInput {
  @IsOptional()
  @IsString({ message: 'must be period, all, or YYYY-MM-DD..YYYY-MM-DD' })
  @MaxLength(40, { message: 'must be at most 40 characters' })
  close_window?: string;
}

/** A page: `limit` 1–100 (default 20) and the `cursor` a previous page answered. */
class PageInput {
  @IsOptional()
  @IsInt({ message: 'must be a whole number' })
  @Min(1, { message: 'must be at least 1' })
  @Max(100, { message: 'must be at most 100' })
  limit: number = 20;

  @IsOptional()
  @IsString({ message: 'must be a cursor (a string)' })
  @MaxLength(512, { message: 'must be at most 512 characters' })
  cursor?: string;
}

/** `GET /pipelines/movement/deals`. */
export class MovementDealsInput extends MovementInput {
  @IsIn([...MOVEMENT_KINDS], { message: `must be one of ${MOVEMENT_KINDS.join(', ')}` })
  bucket!: string;

  @IsOptional()
  @IsInt({ message: 'must be a whole number' })
  @Min(1, { message: 'must be at least 1' })
  @Max(100, { message: 'must be at most 100' })
  limit: number = 20;

  @IsOptional()
  @IsString({ message: 'must be a cursor (a string)' })
  @MaxLength(512, { message: 'must be at most 512 characters' })
  cursor?: string;
}

/** `GET /pipelines/stage-analytics`: two dates. */
export class StageAnalyticsInput {
  @IsEntityId()
  pipeline_id!: string;

  @Matches(DAY_PATTERN, { message: DAY_MESSAGE })
  from!: string;

  @Matches(DAY_PATTERN, { message: DAY_MESSAGE })
  to!: string;
}

/** `GET /pipelines/slipped-deals`. */
export class SlippedDealsInput extends PageInput {
  @IsEntityId()
  pipeline_id!: string;

  @IsEntityId()
  from!: string;

  @IsEntityId()
  to!: string;
}
