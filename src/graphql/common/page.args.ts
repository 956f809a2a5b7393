import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { ArgsType, Field, Int } from 'type-graphql';

/** Page arguments of every cursor connection: `first` 1–100 (default 20), `after` a cursor. */
@ArgsType()
export class PageArgs {
  @Field(() => Int, { defaultValue: 20, description: '1–100.' })
  @IsInt()
  @Min(1)
  @Max(100)
  first: number = 20;

  @Field(() => String, {
    nullable: true,
    description: 'An `endCursor` (or edge cursor) of a previous page.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(512)
  after?: string | null;
}
