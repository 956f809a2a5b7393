import { EVENT_TYPES, isEventType, typeWanted } from '../../events/event-types';
import { eventDataFor, passesFilter } from '../../events/visibility';
import { BadUserInputError, ForbiddenError } from '../../errors';
import type { EventDoc } from '../../models/event.model';
import type { GatewayEventType } from './gateway-event.type';
import type { SubscriptionContext } from './live-connection';

/** Events a subscriber may fall behind by before its subscription ends (it reconnects and catches up by REST). */
export const MAX_BEHIND = 10_000;

/**
 * The `events` subscription: every event the instance reads from the outbox from now on, of the
 * types asked for, about the pipeline asked for (and the account-wide ones), as the caller may read
 * it (visibility.ts) with the role they have at that moment.
 */
export function eventStream(
  ctx: SubscriptionContext,
  types: readonly string[] | null | undefined,
  pipelineId: string | null | undefined,
): AsyncIterable<GatewayEventType> {
  const wanted = types && types.length > 0 ? [...types] : ['*'];
  const unknown = wanted.filter((type) => type !== '*' && !isEventType(type));
  if (unknown.length > 0)
    throw new BadUserInputError(
      `Unknown event type ${unknown.map((t) => `"${t}"`).join(', ')}; known: ${EVENT_TYPES.join(', ')}`,
      [{ field: 'types', message: 'must name known event types' }],
    );
  const queue: GatewayEventType[] = [];
  let wake: (() => void) | null = null;
  let failure: Error | null = null;
  let ended = false;
  const accept = (events: readonly EventDoc[]) => {
    for (const event of events) {
      if (!typeWanted(wanted, event.type)) continue;
      if (pipelineId && !passesFilter(event.audience, { pipelineId })) continue;
      const data = eventDataFor(ctx.live.principal, event);
      if (data === null) continue;
      queue.push({ id: event._id, type: event.type, timestamp: event.at, data });
    }
    if (queue.length > MAX_BEHIND)
      failure = new ForbiddenError(
        `This subscriber fell more than ${MAX_BEHIND} events behind; subscribe again`,
      );
    wake?.();
  };
  return {
    [Symbol.asyncIterator]() {
      const stop = ctx.source.subscribe(accept);
      return {
        async next(): Promise<IteratorResult<GatewayEventType>> {
          while (queue.length === 0 && failure === null && !ended)
            await new Promise<void>((resolve) => (wake = resolve));
          wake = null;
          if (ended) return { value: undefined, done: true };
          if (failure) {
            stop();
            throw failure;
          }
          return { value: queue.shift()!, done: false };
        },
        async return(): Promise<IteratorResult<GatewayEventType>> {
          stop();
          ended = true;
          queue.length = 0;
          wake?.();
          return { value: undefined, done: true };
        },
      };
    },
  };
}
