import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { TOKEN_LIFETIME } from '../../services/token.service';
import { IsEntityId } from '../../validation';

/** Body of `POST /auth/tokens`. */
export class IssueTokenInput {
  @IsEntityId()
  member_id!: string;

  /** Seconds, 60 s to 30 days; one day when omitted. */
  @IsOptional()
  @IsInt({ message: 'must be a whole number of seconds' })
  @Min(TOKEN_LIFETIME.minSeconds, {
    message: `must be at least ${TOKEN_LIFETIME.minSeconds} seconds`,
  })
  @Max(TOKEN_LIFETIME.maxSeconds, {
    message: `must be at most ${TOKEN_LIFETIME.maxSeconds} seconds (30 days)`,
  })
  expires_in?: number;
}
