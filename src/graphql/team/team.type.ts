import { Field, ID, ObjectType } from 'type-graphql';
import type { TeamDoc } from '../../models/team.model';

/** A team. `members` is a field resolver (team.resolver.ts) backed by the membersByTeam loader. */
@ObjectType({ simpleResolvers: true, description: 'A sales team.' })
export class Team {
  @Field(() => ID)
  id!: string;

  @Field()
  name!: string;
}

export function toTeam(doc: TeamDoc): Team {
  return { id: doc._id, name: doc.name };
}
