import { EmailAddressResolver } from 'graphql-scalars';
import { Field, ID, ObjectType } from 'type-graphql';
import type { MemberDoc } from '../../models/member.model';
import { Role } from './role.enum';

/**
 * A team member. `team` and `targets` are field resolvers (member.resolver.ts) backed by loaders;
 * other domains add fields (`pipelines`) with their own `@Resolver(() => Member)` classes and
 * read `teamId` from the root object.
 */
@ObjectType({ simpleResolvers: true, description: 'A team member.' })
export class Member {
  @Field(() => ID)
  id!: string;

  @Field()
  firstname!: string;

  @Field()
  lastname!: string;

  @Field(() => EmailAddressResolver, {
    description: 'As given at creation; unique case-insensitively.',
  })
  email!: string;

  @Field(() => Role)
  role!: Role;

  /** Not a GraphQL field: the `team` field resolves it through the teamById loader. */
  teamId!: string;
}

export function toMember(doc: MemberDoc): Member {
  return {
    id: doc._id,
    firstname: doc.firstname,
    lastname: doc.lastname,
    email: doc.email,
    role: doc.role,
    teamId: doc.teamId,
  };
}
