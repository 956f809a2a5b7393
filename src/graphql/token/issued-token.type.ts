import { Field, ID, ObjectType } from 'type-graphql';
import { Role } from './role.enum';

@ObjectType({ simpleResolvers: true, description: 'A signed bearer token for one member.' })
export class IssuedToken {
  @Field({ description: 'Send as "Authorization: Bearer <token>".' })
  token!: string;

  @Field(() => ID, {
    description: "The token's id (`jti`): `tokens` lists it, `revokeToken` revokes it.",
  })
  id!: string;

  @Field(() => Date)
  issuedAt!: Date;

  @Field(() => Date)
  expiresAt!: Date;

  @Field(() => ID)
  memberId!: string;

  @Field(() => Role, {
    description: 'The role at issue time; each request re-reads it from the member.',
  })
  role!: Role;
}
