import { Args, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { AuthenticatedContext } from '../../context/request-context';
import { UnauthenticatedError } from '../../errors';
import { issueToken } from '../../services/token.service';
import { IssueTokenArgs } from './issue-token.args';
import { IssuedToken } from './issued-token.type';
import { Viewer } from './viewer.type';

@Resolver()
export class TokenResolver {
  @Query(() => Viewer, { description: 'The principal behind the current token.' })
  viewer(@Ctx() ctx: AuthenticatedContext): Viewer {
    if (!ctx.principal) throw new UnauthenticatedError();
    return Object.assign(new Viewer(), ctx.principal);
  }

  @Mutation(() => IssuedToken, { description: 'Issue a signed token for a member (admin only).' })
  async issueToken(
    @Args() args: IssueTokenArgs,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<IssuedToken> {
    const issued = await issueToken(ctx, { memberId: args.memberId, expiresIn: args.expiresIn });
    return Object.assign(new IssuedToken(), issued);
  }
}
