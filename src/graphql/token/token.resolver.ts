import { Arg, Args, Ctx, Extensions, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { AuthenticatedContext } from '../../context/request-context';
import { UnauthenticatedError } from '../../errors';
import { pageComplexity } from '../../security/field-costs';
import { decodeCursor } from '../../services/pipeline-cursor';
import {
  ISSUED_TOKEN_NOT_KEPT,
  issueToken,
  listTokens,
  revokeToken,
} from '../../services/token.service';
import { KEY_REFUSED } from '../../security/idempotency/idempotency.plugin';
import { NOT_KEPT } from '../answer-cache.plugin';
import { IssueTokenArgs } from './issue-token.args';
import { IssuedToken } from './issued-token.type';
import { Token, TokenConnection, toToken, toTokenConnection } from './token.type';
import { TokensArgs } from './tokens.args';
import { Viewer } from './viewer.type';

@Resolver()
export class TokenResolver {
  @Query(() => Viewer, { description: 'The principal behind the current token.' })
  viewer(@Ctx() ctx: AuthenticatedContext): Viewer {
    if (!ctx.principal) throw new UnauthenticatedError();
    return Object.assign(new Viewer(), ctx.principal);
  }

  @Query(() => TokenConnection, {
    description:
      "Admin only. A member's live tokens (neither revoked nor expired), in issue order (GET /auth/tokens).",
    complexity: pageComplexity,
  })
  // Which tokens are live depends on the clock as much as on the data.
  @Extensions({ [NOT_KEPT]: true })
  async tokens(
    @Args() args: TokensArgs,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<TokenConnection> {
    const page = await listTokens(ctx, {
      memberId: args.memberId,
      limit: args.first,
      afterId: args.after ? decodeCursor('t', args.after, 'after') : null,
    });
    return toTokenConnection(page.tokens, page.hasMore);
  }

  @Mutation(() => IssuedToken, { description: 'Issue a signed token for a member (admin only).' })
  @Extensions({ [KEY_REFUSED]: ISSUED_TOKEN_NOT_KEPT })
  async issueToken(
    @Args() args: IssueTokenArgs,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<IssuedToken> {
    const issued = await issueToken(ctx, { memberId: args.memberId, expiresIn: args.expiresIn });
    return {
      token: issued.token,
      id: issued.tokenId,
      issuedAt: issued.issuedAt,
      expiresAt: issued.expiresAt,
      memberId: issued.memberId,
      role: issued.role,
    };
  }

  @Mutation(() => Token, {
    description:
      'Revoke a token (admin: any; a member: their own): it answers UNAUTHENTICATED from the next request on. A token revoked before is answered as it is.',
  })
  async revokeToken(
    @Arg('id', () => ID) id: string,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<Token> {
    return toToken((await revokeToken(ctx, id)).token);
  }
}
