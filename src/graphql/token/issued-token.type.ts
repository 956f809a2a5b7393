import { Field, ID, ObjectType } from 'type-graphql';
import { Role } from './role.enum';

@ObjectType({ simpleResolvers: true, description: 'A signed bearer token for one member.' })
export class IssuedToken {
  @Field({ description: 'Send as "Authorization: Bearer <token>".' })
  token!: string;

  @Field(() => Date)
  expiresAt!: Date;

  @Field(() => ID)
  memberId!: string;

  @Field(() => Role, {
    description: 'The role at issue time; each request re-reads it from the member.',
  })
  role!: Role;
}
