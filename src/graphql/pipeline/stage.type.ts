import { Field, Float, ID, Int, ObjectType } from 'type-graphql';

/** A stage of a pipeline definition; REST renders the same values as text. */
@ObjectType({ simpleResolvers: true, description: 'A stage of a pipeline definition.' })
export class Stage {
  @Field(() => ID)
  id!: string;

  @Field()
  label!: string;

  @Field(() => Int, { description: 'Position in the definition, from 0.' })
  order!: number;

  @Field({
    description:
      'False for open stages; closed with probability 1 is won, any other probability lost.',
  })
  isClosed!: boolean;

  @Field(() => Float, { description: 'Win probability, 0..1.' })
  probability!: number;
}
