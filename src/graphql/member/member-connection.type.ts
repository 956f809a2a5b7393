import { Field, ObjectType } from 'type-graphql';
import { encodeMemberCursor } from '../../services/member-cursor';
import { Member } from './member.type';
import { PageInfo } from './page-info.type';
import { countedListComplexity } from '../../security/field-costs';

@ObjectType({ simpleResolvers: true })
export class MemberEdge {
  @Field({ description: 'Opaque; pass as `after` to read the members after this one.' })
  cursor!: string;

  @Field(() => Member)
  node!: Member;
}

@ObjectType({ simpleResolvers: true, description: 'A page of members in stable (id) order.' })
export class MemberConnection {
  @Field(() => [MemberEdge], { complexity: countedListComplexity })
  edges!: MemberEdge[];

  @Field(() => PageInfo)
  pageInfo!: PageInfo;
}

/** Builds a connection from one page of members (in order) and whether more follow. */
export function toMemberConnection(members: Member[], hasNextPage: boolean): MemberConnection {
  const edges = members.map((node) => ({ cursor: encodeMemberCursor(node.id), node }));
  return {
    edges,
    pageInfo: { hasNextPage, endCursor: edges.length > 0 ? edges[edges.length - 1].cursor : null },
  };
}
