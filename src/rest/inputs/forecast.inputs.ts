import {
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateBy,
  buildMessage,
} from 'class-validator';
import { CADENCE_EVERY, parseCadence, type CadenceEvery } from '../../domain/forecast-cadence';
import { MAX_NOTE_LENGTH, MAX_SUBMISSIONS_PAGE } from '../../services/forecasts/submission.service';
import { IsEntityId } from '../../validation';

const PERIOD_NAME = () =>
  [
    IsString({ message: 'must be a period such as 2026-Q4, 2026-m11 or 2026-w47' }),
    MaxLength(16, { message: 'must be a period such as 2026-Q4, 2026-m11 or 2026-w47' }),
  ] as const;

const SCOPE_NAME = () =>
  [
    IsString({ message: 'must be company, team:<team_id> or member:<member_id>' }),
    MaxLength(140, { message: 'must be company, team:<team_id> or member:<member_id>' }),
  ] as const;

function apply(...decorators: readonly PropertyDecorator[]): PropertyDecorator {
  return (target, key) => decorators.forEach((decorator) => decorator(target, key));
}

/** `GET /forecasts`, `GET /forecasts/accuracy`: period and scope, both optional. */
export class ForecastQuery {
  @IsOptional()
  @apply(...PERIOD_NAME())
  period?: string;

  @IsOptional()
  @apply(...SCOPE_NAME())
  scope?: string;
}

/** `GET /forecasts/submissions`: a page of calls. */
export class ListSubmissionsQuery extends ForecastQuery {
  @IsOptional()
  @IsInt({ message: `must be an integer from 1 to ${MAX_SUBMISSIONS_PAGE}` })
  @Min(1, { message: `must be an integer from 1 to ${MAX_SUBMISSIONS_PAGE}` })
  @Max(MAX_SUBMISSIONS_PAGE, { message: `must be an integer from 1 to ${MAX_SUBMISSIONS_PAGE}` })
  limit?: number;

  @IsOptional()
  @IsString({ message: 'must be a cursor returned by a previous page (next_cursor)' })
  @MaxLength(200, { message: 'must be a cursor returned by a previous page (next_cursor)' })
  cursor?: string;
}

/** `GET /forecasts/missing`. */
export class MissingQuery {
  @IsOptional()
  @apply(...PERIOD_NAME())
  period?: string;
}

const AMOUNT = 'must be an amount of 0 or more';

/** Body of `POST /forecasts/submissions`. */
export class SubmitForecastBody {
  @apply(...PERIOD_NAME())
  period!: string;

  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: AMOUNT })
  @Min(0, { message: AMOUNT })
  call!: number;

  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: AMOUNT })
  @Min(0, { message: AMOUNT })
  best_case?: number;

  @IsOptional()
  @IsString({ message: 'must be text' })
  @MaxLength(MAX_NOTE_LENGTH, { message: `must be at most ${MAX_NOTE_LENGTH} characters` })
  note?: string;

  @IsOptional()
  @apply(...SCOPE_NAME())
  scope?: string;
}

/** Body of `PUT /settings/forecast-cadence`: `day` is a weekday or a day of the month, by `every`. */
export class SetCadenceBody {
  @IsIn([...CADENCE_EVERY], { message: 'must be "week" or "month"' })
  every!: CadenceEvery;

  @ValidateBy({
    name: 'isCadenceDay',
    validator: {
      validate: (value, args) =>
        'cadence' in parseCadence((args?.object as SetCadenceBody).every, value),
      defaultMessage: buildMessage(
        () =>
          'must be a weekday (monday..sunday) when every is "week", a day from 1 to 28 when every is "month"',
      ),
    },
  })
  day!: string | number;
}

/** `GET /settings/forecast-categories?pipeline_definition_id=`. */
export class ForecastCategoriesQuery {
  @IsEntityId()
  pipeline_definition_id!: string;
}

/** Body of `PUT /settings/forecast-categories`: each stage's category is checked by the service, by stage. */
export class SetForecastCategoriesBody extends ForecastCategoriesQuery {
  @IsObject({
    message: 'must be an object of stage id → category, such as { "closedwon": "commit" }',
  })
  stages!: Record<string, unknown>;
}
