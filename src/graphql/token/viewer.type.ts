import { Field, ID, ObjectType } from 'type-graphql';
import { Role } from './role.enum';

@ObjectType({ simpleResolvers: true, description: 'Who the current token authenticates.' })
export class Viewer {
  @Field({ description: 'A member id, or "admin-token" for the bootstrap admin secret.' })
  subject!: string;

  @Field(() => Role)
  role!: Role;

  @Field(() => ID, { nullable: true })
  memberId!: string | null;

  @Field(() => ID, { nullable: true })
  teamId!: string | null;
}
