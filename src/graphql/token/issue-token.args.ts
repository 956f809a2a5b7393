import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { ArgsType, Field, ID, Int } from 'type-graphql';
import { TOKEN_LIFETIME } from '../../services/token.service';
import { IsEntityId } from '../../validation';

@ArgsType()
export class IssueTokenArgs {
  @Field(() => ID, { description: 'The member the token acts as.' })
  @IsEntityId()
  memberId!: string;

  @Field(() => Int, {
    nullable: true,
    description: 'Lifetime in seconds, 60 to 2592000 (30 days); one day when omitted.',
  })
  @IsOptional()
  @IsInt({ message: 'must be a whole number of seconds' })
  @Min(TOKEN_LIFETIME.minSeconds, {
    message: `must be at least ${TOKEN_LIFETIME.minSeconds} seconds`,
  })
  @Max(TOKEN_LIFETIME.maxSeconds, {
    message: `must be at most ${TOKEN_LIFETIME.maxSeconds} seconds (30 days)`,
  })
  expiresIn?: number;
}
