import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, ID, ObjectType } from 'type-graphql';

@ObjectType('GatewayEvent', {
  simpleResolvers: true,
  description:
    'One event of the outbox (docs/events.md): what a webhook delivery carries, as the subscriber may read it.',
})
export class GatewayEventType {
  @Field(() => ID, { description: 'The event id: the `webhook-id` of its webhook deliveries.' })
  id!: string;

  @Field({ description: 'snapshot.committed, member.created, target.updated, ...' })
  type!: string;

  @Field({ description: 'When the change was made.' })
  timestamp!: Date;

  @Field(() => GraphQLJSONObject, {
    description: "The event's data, in the REST contract's shape (snake_case).",
  })
  data!: Record<string, unknown>;
}
