import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsInt,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { MAX_DURATION } from '../../services/timeseries.service';
import { IsEntityId, IsNestedInput } from '../../validation';

/** Query of `GET /pipelines`: an older snapshot, optionally. */
export class PipelinesQuery {
  @IsOptional()
  @IsEntityId()
  snapshot_id?: string;
}

/** `GET /pipelines/stages`. */
export class StagesInput extends PipelinesQuery {
  @IsEntityId()
  pipeline_definition_id!: string;
}

/** `GET /pipelines/metrics`: the names are checked against the catalogue by the service (400 naming the allowed ones). */
export class MetricsInput extends PipelinesQuery {
  @IsEntityId()
  pipeline_id!: string;

  @IsOptional()
  @IsArray({ message: 'must be a list of metric names' })
  @ArrayMaxSize(50, { message: 'must hold at most 50 names' })
  @IsString({ each: true, message: 'must hold only metric names (strings)' })
  @MaxLength(100, { each: true, message: 'must hold names of at most 100 characters' })
  metrics?: string[];
}

// `metrics[duration]=4` arrives as text inside the nested object, which query coercion (top level
// only) does not reach: a whole number written as text is read as that number.
const wholeNumberText = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^\d{1,4}$/.test(value.trim()) ? Number(value) : value;

/** `metrics: { metric_name, duration }` of `GET /pipelines/timeseries`. */
export class TimeseriesMetricInput {
  @IsOptional()
  @IsString({ message: 'must be a metric name (a string)' })
  @MaxLength(100, { message: 'must be at most 100 characters' })
  metric_name?: string;

  @IsOptional()
  @Transform(wholeNumberText)
  @IsInt({ message: 'must be a whole number of periods' })
  @Min(1, { message: 'must be at least 1' })
  @Max(MAX_DURATION, { message: `must be at most ${MAX_DURATION}` })
  duration?: number;
}

/** `GET /pipelines/timeseries`: `metrics: { metric_name, duration }`, or both fields flat. */
export class TimeseriesInput extends TimeseriesMetricInput {
  @IsEntityId()
  pipeline_id!: string;

  @IsOptional()
  @IsNestedInput(() => TimeseriesMetricInput)
  metrics?: TimeseriesMetricInput;
}
