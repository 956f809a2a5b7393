import { ArrayMaxSize, IsArray, IsInt, IsOptional, Max, Min } from 'class-validator';
import { Field, Float, ID, InputType, Int } from 'type-graphql';
import { TARGET_YEARS } from '../../services/target.service';
import { IsEntityId } from '../../validation/rules';

@InputType({
  description:
    "A member's targets for one year; the same rules as POST /teams/members/{member_id}/targets.",
})
export class SetMemberTargetsInput {
  @Field(() => ID)
  @IsEntityId()
  memberId!: string;

  @Field(() => Int, {
    nullable: true,
    description: `${TARGET_YEARS.min}–${TARGET_YEARS.max}; default the current UTC year.`,
  })
  @IsOptional()
  @IsInt()
  @Min(TARGET_YEARS.min)
  @Max(TARGET_YEARS.max)
  year?: number | null;

  /**
   * Only the shape is checked here: the exact length depends on the configured period and each
   * bad amount is reported by index (`targets[3]`), which the service does.
   */
  @Field(() => [Float], {
    description: 'One non-negative amount per period: 4 quarterly, 12 monthly, 52 weekly.',
  })
  @IsArray()
  @ArrayMaxSize(52)
  targets!: number[];
}
