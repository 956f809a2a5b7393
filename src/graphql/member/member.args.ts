import { IsOptional } from 'class-validator';
import { ArgsType, Field, ID } from 'type-graphql';
import { PageArgs } from '../common/page.args';
import { IsEntityId, IsRoleValue } from '../../validation/rules';
import { Role } from './role.enum';

/** Page arguments of every member connection, with an optional role filter. */
@ArgsType()
export class MemberPageArgs extends PageArgs {
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
