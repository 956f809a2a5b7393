import { Field, ID, ObjectType } from 'type-graphql';
import type { TokenDoc } from '../../models/token.model';
import { encodeCursor } from '../../services/pipeline-cursor';
import { countedListComplexity } from '../../security/field-costs';
import { PageInfo } from '../member/page-info.type';

@ObjectType({
  simpleResolvers: true,
  description: 'The record of an issued member token (never the token itself).',
})
export class Token {
  @Field(() => ID, { description: "The token's `jti`; `revokeToken(id:)` takes it." })
  id!: string;

  @Field(() => ID, { description: 'The member the token acts as.' })
  memberId!: string;

  @Field({
    description: 'The admin member who issued it, or "admin-token" for the bootstrap secret.',
  })
  issuedBy!: string;

  @Field(() => Date)
  issuedAt!: Date;

  @Field(() => Date)
  expiresAt!: Date;

  @Field(() => Date, { nullable: true, description: 'Null while the token is live.' })
  revokedAt!: Date | null;
}

export function toToken(doc: TokenDoc): Token {
  return {
    id: doc._id,
    memberId: doc.memberId,
    issuedBy: doc.issuedBy,
    issuedAt: doc.issuedAt,
    expiresAt: doc.expiresAt,
    revokedAt: doc.revokedAt,
  };
}

@ObjectType({ simpleResolvers: true })
export class TokenEdge {
  @Field({ description: 'Opaque; pass as `after` to read the tokens after this one.' })
  cursor!: string;

  @Field(() => Token)
  node!: Token;
}

@ObjectType({ simpleResolvers: true, description: 'A page of live tokens in issue order.' })
export class TokenConnection {
  @Field(() => [TokenEdge], { complexity: countedListComplexity })
  edges!: TokenEdge[];

  @Field(() => PageInfo)
  pageInfo!: PageInfo;
}

/** Builds a connection from one page of token records (in order) and whether more follow. */
export function toTokenConnection(docs: TokenDoc[], hasNextPage: boolean): TokenConnection {
  const edges = docs.map((doc) => ({ cursor: encodeCursor('t', doc._id), node: toToken(doc) }));
  return {
    edges,
    pageInfo: { hasNextPage, endCursor: edges.length > 0 ? edges[edges.length - 1].cursor : null },
  };
}
