import { ArgsType, Field, ID } from 'type-graphql';
import { PageArgs } from '../common/page.args';
import { IsEntityId } from '../../validation';

@ArgsType()
export class TokensArgs extends PageArgs {
  @Field(() => ID, { description: 'The member whose live tokens to list.' })
  @IsEntityId()
  memberId!: string;
}
