import { IsString, MaxLength, MinLength, ValidateIf } from 'class-validator';
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

// A field left out is not changed; one given as null is refused (no field of a member may be null).
const GIVEN = ValidateIf((_input: object, value: unknown) => value !== undefined);

@InputType({
  description:
    'Changes to a member, at least one; the same rules as PATCH /teams/members/{member_id}.',
})
export class UpdateMemberInput {
  @Field({ nullable: true })
  @GIVEN
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  firstname?: string;

  @Field({ nullable: true })
  @GIVEN
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  lastname?: string;

  @Field({ nullable: true, description: 'Unique, compared case-insensitively.' })
  @GIVEN
  @IsMemberEmail()
  email?: string;

  @Field(() => Role, {
    nullable: true,
    description: 'Counts from the next request on, for tokens issued before too.',
  })
  @GIVEN
  @IsRoleValue()
  role?: Role;
}
