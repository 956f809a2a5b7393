import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { ArgsType, Field, ID, Int } from 'type-graphql';
import { TARGET_YEARS } from '../../services/target.service';
import { IsEntityId } from '../../validation/rules';

@ArgsType()
export class MemberTargetsArgs {
  @Field(() => ID)
  @IsEntityId()
  memberId!: string;

  @Field(() => Int, { nullable: true, description: 'Default: the current UTC year.' })
  @IsOptional()
  @IsInt()
  @Min(TARGET_YEARS.min)
  @Max(TARGET_YEARS.max)
  year?: number | null;
}
