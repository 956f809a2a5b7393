import { IsBoolean, IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { ArgsType, Field, ID, Int } from 'type-graphql';
import { PageArgs } from '../common/page.args';
import { METRIC_NAMES } from '../../domain/metric-catalogue';
import { MAX_DURATION } from '../../services/timeseries.service';
import { IsEntityId } from '../../validation/rules';

/** `first` 1–100 (default 20) and `after`, for snapshot and opportunity pages. */
@ArgsType()
export class PipelinePageArgs extends PageArgs {}

/** `Pipeline.opportunities`: a page, optionally one stage only, optionally open (or closed) only. */
@ArgsType()
export class OpportunitiesArgs extends PipelinePageArgs {
  @Field(() => ID, { nullable: true })
  @IsOptional()
  @IsEntityId()
  stageId?: string | null;

  @Field(() => Boolean, {
    nullable: true,
    description: 'true: open ones only; false: won and lost ones only.',
  })
  @IsOptional()
  @IsBoolean()
  open?: boolean | null;
}

/** `pipeline(id, snapshotId)`. */
@ArgsType()
export class PipelineArgs {
  @Field(() => ID)
  @IsEntityId()
  id!: string;

  @Field(() => ID, { nullable: true, description: 'Default: the latest snapshot.' })
  @IsOptional()
  @IsEntityId()
  snapshotId?: string | null;
}

/** `Pipeline.timeseries(metric, duration)`. */
@ArgsType()
export class TimeseriesArgs {
  @Field({ description: `One of ${METRIC_NAMES.join(', ')}.` })
  @IsIn([...METRIC_NAMES], { message: `must be one of ${METRIC_NAMES.join(', ')}` })
  metric!: string;

  @Field(() => Int, {
    description: `Periods of the configured unit, 1–${MAX_DURATION}, ending with the current one.`,
  })
  @IsInt()
  @Min(1)
  @Max(MAX_DURATION)
  duration!: number;
}
