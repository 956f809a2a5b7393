import { IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { Field, ID, InputType } from 'type-graphql';
import { IsEntityId } from '../../validation/rules';

@InputType({ description: 'A new team; the same rules as POST /teams.' })
export class CreateTeamInput {
  @Field(() => ID, { nullable: true, description: 'Chosen id; a UUID is generated when absent.' })
  @IsOptional()
  @IsEntityId()
  id?: string | null;

  @Field()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name!: string;
}
