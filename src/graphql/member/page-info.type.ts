import { Field, ObjectType } from 'type-graphql';

@ObjectType({
  simpleResolvers: true,
  description: 'Relay-style position of a page in a cursor connection.',
})
export class PageInfo {
  @Field()
  hasNextPage!: boolean;

  @Field(() => String, {
    nullable: true,
    description: 'Pass as `after` to read the next page; null on an empty page.',
  })
  endCursor!: string | null;
}
