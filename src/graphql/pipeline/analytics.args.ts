import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { ArgsType, Field } from 'type-graphql';
import { PageArgs } from '../common/page.args';
import { IsEntityId } from '../../validation/rules';

const DAY_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

/** `Pipeline.movement(from, to, closeWindow)`. */
@ArgsType()
export class MovementArgs {
  @Field({
    description:
      'A date YYYY-MM-DD (the latest snapshot at or before its end, UTC) or a snapshot id.',
  })
  @IsEntityId()
  from!: string;

  @Field({ description: 'A date YYYY-MM-DD or a snapshot id, not before `from`.' })
  @IsEntityId()
  to!: string;

  @Field(() => String, {
    nullable: true,
    description:
      "`period` (default: the configured period containing the `to` snapshot's date), `all`, or `YYYY-MM-DD..YYYY-MM-DD`.",
  })
  @IsOptional()
  @IsString()
  @MaxLength(40)
  closeWindow?: string | null;
}

/** `Pipeline.stageAnalytics(from, to)`: two dates, both included. */
@ArgsType()
export class StageAnalyticsArgs {
  @Field({ description: 'YYYY-MM-DD' })
  @Matches(DAY_PATTERN, { message: 'must be a date YYYY-MM-DD' })
  from!: string;

  @Field({ description: 'YYYY-MM-DD' })
  @Matches(DAY_PATTERN, { message: 'must be a date YYYY-MM-DD' })
  to!: string;
}

/** `Pipeline.slippedDeals(from, to, first, after)`. */
@ArgsType()
export class SlippedDealsArgs extends PageArgs {
  @Field({ description: 'A date YYYY-MM-DD or a snapshot id.' })
  @IsEntityId()
  from!: string;

  @Field({ description: 'A date YYYY-MM-DD or a snapshot id, not before `from`.' })
  @IsEntityId()
  to!: string;
}
