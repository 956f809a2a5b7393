import { IsString, MaxLength, MinLength } from 'class-validator';
import { Field, ID, InputType } from 'type-graphql';
import { IsEntityId, IsMemberEmail, IsRoleValue } from '../../validation/rules';
import { Role } from './role.enum';

@InputType({ description: 'A new member; the same rules as POST /teams/members.' })
export class CreateMemberInput {
  @Field()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  firstname!: string;

  @Field()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  lastname!: string;

  @Field({ description: 'Unique, compared case-insensitively.' })
  @IsMemberEmail()
  email!: string;

  @Field(() => Role)
  @IsRoleValue()
  role!: Role;

  @Field(() => ID)
  @IsEntityId()
  teamId!: string;
}
