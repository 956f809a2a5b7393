import { Args, Resolver, Root, Subscription } from 'type-graphql';
import { CrmSyncType } from '../sync/crm-sync.type';
import { crmSyncStream } from './crm-sync-stream';
import { CrmSyncArgs, EventsArgs } from './events.args';
import { eventStream } from './event-stream';
import { GatewayEventType } from './gateway-event.type';
import type { SubscriptionContext } from './live-connection';

/**
 * GraphQL subscriptions, over graphql-ws at /graphql (mount-subscriptions.ts). Each field's
 * `subscribe` makes the stream; the resolver passes each item on as it is.
 */
@Resolver()
export class SubscriptionResolver {
  @Subscription(() => GatewayEventType, {
    description:
      'The events of changes from now on (docs/events.md), filtered by type and pipeline, as the caller may read them: sync events for admins, target amounts for whoever may read those targets.',
    subscribe: ({ args, context }) => {
      const { types, pipelineId } = args as EventsArgs;
      return eventStream(context as SubscriptionContext, types, pipelineId);
    },
  })
  events(@Root() event: GatewayEventType, @Args() _args: EventsArgs): GatewayEventType {
    return event;
  }

  @Subscription(() => CrmSyncType, {
    description:
      'Admin only. A CRM sync as the crmSync query answers it, each time it moves, until it ends. NOT_FOUND for an unknown id.',
    subscribe: ({ args, context }) =>
      crmSyncStream(context as SubscriptionContext, (args as CrmSyncArgs).id),
  })
  crmSync(@Root() run: CrmSyncType, @Args() _args: CrmSyncArgs): CrmSyncType {
    return run;
  }
}
