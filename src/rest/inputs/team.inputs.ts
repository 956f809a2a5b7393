import { IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { IsEntityId } from '../../validation';

/** Body of `POST /teams`. */
export class CreateTeamBody {
  @IsOptional()
  @IsEntityId()
  team_id?: string;

  @IsString({ message: 'must be a string' })
  @MinLength(1, { message: 'must not be empty' })
  @MaxLength(200, { message: 'must be at most 200 characters' })
  name!: string;
}

/** Path `team_id` of `GET /teams/{team_id}`. */
export class TeamIdInput {
  @IsEntityId()
  team_id!: string;
}
