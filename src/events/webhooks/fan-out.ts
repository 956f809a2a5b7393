import { createHash } from 'node:crypto';
import { trusted } from 'mongoose';
import { EventModel, type EventDoc } from '../../models/event.model';
import { DeliveryModel, type DeliveryDoc } from '../../models/webhook-delivery.model';
import { WebhookModel, type WebhookDoc } from '../../models/webhook.model';
import { typeWanted } from '../event-types';
import { passesFilter } from '../visibility';
import { EVENTS_POLL_COMMENT } from '../poll-comment';

/** Events fanned out per round. */
export const FAN_OUT_ROUND = 500;

/** `dlv_` and 32 hex digits of the SHA-256 of `parts`: the delivery of one event to one webhook has one id. */
export function deliveryId(...parts: string[]): string {
  return `dlv_${createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 32)}`;
}

/** Whether `webhook` wants `event`: enabled, there when it was published, its types, its filter. */
export function wants(webhook: WebhookDoc, event: EventDoc): boolean {
  return (
    webhook.enabled &&
    webhook.createdAt.getTime() <= (event.publishedAt ?? event.at).getTime() &&
    typeWanted(webhook.events, event.type) &&
    passesFilter(event.audience, webhook.filter)
  );
}

/** A new delivery, due now. */
export function newDelivery(
  webhook: Pick<WebhookDoc, '_id'>,
  event: Pick<EventDoc, '_id' | 'seq' | 'type'>,
  now: Date,
  options: { id?: string; replay?: boolean } = {},
): DeliveryDoc {
  return {
    _id: options.id ?? deliveryId(event._id, webhook._id),
    webhookId: webhook._id,
    eventId: event._id,
    eventSeq: event.seq ?? 0,
    type: event.type,
    status: 'pending',
    attempts: [],
    nextAttemptAt: now,
    leaseOwner: null,
    leaseUntil: null,
    replay: options.replay ?? false,
    scheduleStart: 0,
    createdAt: now,
    finishedAt: null,
  };
}

/** Inserts deliveries, leaving those already there (made by another instance) as they are. */
export async function insertDeliveries(deliveries: readonly DeliveryDoc[]): Promise<void> {
  if (deliveries.length === 0) return;
  try {
    await DeliveryModel.collection.insertMany(deliveries as never[], { ordered: false });
  } catch (error) {
    const { writeErrors } = error as { writeErrors?: Array<{ code?: number }> | { code?: number } };
    const errors = Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : [];
    if (errors.length === 0 || errors.some((e) => e.code !== 11000)) throw error;
  }
}

/**
 * Makes the webhook deliveries of the events not fanned out yet, oldest first, then marks them
 * fanned out. Any instance may run it, several at once: a delivery's id is derived from its event
 * and webhook, so a second fan-out of the same event inserts nothing; an instance stopping half-way
 * leaves the events unmarked, and the next fan-out makes what is missing. Fans out at most `round`
 * events; answers how many.
 */
export async function fanOut(now: Date = new Date(), round = FAN_OUT_ROUND): Promise<number> {
  const events = await EventModel.find({ fanout: 'pending', seq: trusted({ $ne: null }) })
    .sort({ seq: 1 })
    .limit(round)
    .comment(EVENTS_POLL_COMMENT)
    .lean<EventDoc[]>();
  if (events.length === 0) return 0;
  const webhooks = await WebhookModel.find({ enabled: true }).lean<WebhookDoc[]>();
  const deliveries: DeliveryDoc[] = [];
  for (const event of events)
    for (const webhook of webhooks)
      if (wants(webhook, event)) deliveries.push(newDelivery(webhook, event, now));
  await insertDeliveries(deliveries);
  await EventModel.updateMany(
    { _id: trusted({ $in: events.map((e) => e._id) }) },
    { $set: { fanout: 'done' } },
  );
  return events.length;
}
