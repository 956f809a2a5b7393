import {
  IsDefined,
  IsInt,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateIf,
} from 'class-validator';
import { IsEntityId, IsMemberEmail, IsNestedInput, IsRoleValue } from '../../validation';
import type { Role } from '../../auth/role';

/** `memberOf` of `POST /teams/members`. */
export class MemberOfInput {
  @IsEntityId()
  team_id!: string;
}

/** Body of `POST /teams/members`: every field required. */
export class CreateMemberBody {
  @IsString({ message: 'must be a string' })
  @MinLength(1, { message: 'must not be empty' })
  @MaxLength(200, { message: 'must be at most 200 characters' })
  lastname!: string;

  @IsString({ message: 'must be a string' })
  @MinLength(1, { message: 'must not be empty' })
  @MaxLength(200, { message: 'must be at most 200 characters' })
  firstname!: string;

  @IsMemberEmail()
  email!: string;

  @IsRoleValue()
  role!: Role;

  // ValidateNested alone lets a missing object through; the member needs its team.
  @IsDefined({ message: 'is required: { "team_id": "..." }' })
  @IsNestedInput(() => MemberOfInput)
  memberOf!: MemberOfInput;
}

/** Path `member_id` of the member routes. */
export class MemberIdInput {
  @IsEntityId()
  member_id!: string;
}

/** `POST /teams/members/{member_id}` `{ team_id }`. */
export class AttachMemberInput extends MemberIdInput {
  @IsEntityId()
  team_id!: string;
}

// A field left out is not changed; one sent as null is refused (no field of a member may be null).
const GIVEN = ValidateIf((_input: object, value: unknown) => value !== undefined);

/** `PATCH /teams/members/{member_id}`: any of role, firstname, lastname, email (at least one: the service says so). */
export class UpdateMemberBody extends MemberIdInput {
  @GIVEN
  @IsString({ message: 'must be a string' })
  @MinLength(1, { message: 'must not be empty' })
  @MaxLength(200, { message: 'must be at most 200 characters' })
  lastname?: string;

  @GIVEN
  @IsString({ message: 'must be a string' })
  @MinLength(1, { message: 'must not be empty' })
  @MaxLength(200, { message: 'must be at most 200 characters' })
  firstname?: string;

  @GIVEN
  @IsMemberEmail()
  email?: string;

  @GIVEN
  @IsRoleValue()
  role?: Role;
}

/** Query of `GET /teams/members`. */
export class ListMembersQuery {
  @IsOptional()
  @IsEntityId()
  team_id?: string;

  @IsOptional()
  @IsRoleValue()
  role?: Role;

  @IsOptional()
  @IsInt({ message: 'must be a whole number' })
  @Min(1, { message: 'must be at least 1' })
  @Max(100, { message: 'must be at most 100' })
  limit: number = 20;

  @IsOptional()
  @IsString({ message: 'must be a cursor (a string)' })
  @MaxLength(512, { message: 'must be at most 512 characters' })
  cursor?: string;
}
