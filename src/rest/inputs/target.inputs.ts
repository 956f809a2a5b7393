import { ArrayMaxSize, IsArray, IsInt, IsOptional, Max, Min } from 'class-validator';
import { TARGET_YEARS } from '../../services/target.service';
import { IsEntityId } from '../../validation';

/** `GET /teams/members/{member_id}/targets?year=`. */
export class GetTargetsInput {
  @IsEntityId()
  member_id!: string;

  @IsOptional()
  @IsInt({ message: 'must be a whole year' })
  @Min(TARGET_YEARS.min, { message: `must be ${TARGET_YEARS.min} or later` })
  @Max(TARGET_YEARS.max, { message: `must be ${TARGET_YEARS.max} or earlier` })
  year?: number;
}

/**
 * `POST /teams/members/{member_id}/targets` `{ targets, year? }`. Only the list's shape is checked
 * here: its exact length depends on the configured period, and each bad amount is reported by
 * index (`targets[3]`); the service does both, for REST and GraphQL alike.
 */
export class SetTargetsBody extends GetTargetsInput {
  @IsArray({ message: 'must be a list of amounts' })
  @ArrayMaxSize(52, { message: 'must hold at most 52 amounts' })
  targets!: unknown[];
}
