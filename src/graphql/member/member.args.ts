import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { ArgsType, Field, ID, Int } from 'type-graphql';
import { IsEntityId, IsRoleValue } from '../../validation/rules';
import { Role } from './role.enum';

/** Page arguments of every member connection: `first` 1–100 (default 20), `after` a cursor. */
@ArgsType()
export class MemberPageArgs {
  @Field(() => Int, { defaultValue: 20, description: '1–100.' })
  @IsInt()
  @Min(1)
  @Max(100)
  first: number = 20;

  @Field(() => String, { nullable: true, description: 'An `endCursor` (or edge cursor) of a previous page.' })
  @IsOptional()
  @IsString()
  @MaxLength(512)
  after?: string | null;

  @Field(() => Role, { nullable: true })
  @IsOptional()
  @IsRoleValue()
  role?: Role | null;
}

@ArgsType()
export class MembersArgs extends MemberPageArgs {
  @Field(() => ID, { nullable: true })
  @IsOptional()
  @IsEntityId()
  teamId?: string | null;
}
