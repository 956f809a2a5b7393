import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { IsEntityId } from '../../validation';

/** Query of `GET /auth/tokens`. */
export class ListTokensQuery {
  @IsEntityId()
  member_id!: string;

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

/** Path `token_id` of `DEL /auth/tokens/{token_id}`. */
export class TokenIdInput {
  @IsEntityId()
  token_id!: string;
}
