import { randomBytes } from 'node:crypto';
import { trusted } from 'mongoose';
import type { AuthenticatedContext } from '../context/request-context';
import { BadUserInputError, ConflictError, NotFoundError } from '../errors';
import { EVENT_TYPES, isEventType } from '../events/event-types';
import { insertDeliveries, newDelivery, wants, deliveryId } from '../events/webhooks/fan-out';
import { newWebhookSecret } from '../events/webhooks/sign';
import { resolveWebhookUrl, UrlRefusedError } from '../events/webhooks/ssrf-guard';
import { EventModel, type EventDoc } from '../models/event.model';
import { DeliveryModel, type DeliveryDoc } from '../models/webhook-delivery.model';
import { WebhookModel, type WebhookDoc } from '../models/webhook.model';
import { requireAdmin } from './member-access';

/** How long the secret before a rotation keeps signing beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

/** Events one replay sends at most; a longer replay is made in several, each `since` the last sent. */
export const MAX_REPLAY = 10_000;

export interface WebhookInput {
  url: string;
  events: string[];
  filter?: { pipelineId?: string | null; teamId?: string | null } | null;
  description?: string | null;
}

export interface WebhookPatch extends Partial<WebhookInput> {
  enabled?: boolean;
}

/** 400 unless every type is known, or the list is exactly `["*"]`. */
function checkEventTypes(events: string[]): string[] {
  if (events.length === 1 && events[0] === '*') return events;
  const unknown = events.filter((type) => !isEventType(type));
  if (events.length === 0 || unknown.length > 0 || events.includes('*')) {
    const message =
      events.length === 0
        ? 'must name at least one event type, or be ["*"]'
        : events.includes('*')
          ? '"*" stands alone: ["*"] is every type'
          : `unknown event type ${unknown.map((t) => `"${t}"`).join(', ')}; known: ${EVENT_TYPES.join(', ')}`;
    throw new BadUserInputError(`Invalid events: ${message}`, [{ field: 'events', message }]);
  }
  return [...new Set(events)];
}

/** 400 naming why the url is refused (ssrf-guard.ts). */
async function checkUrl(ctx: AuthenticatedContext, url: string): Promise<string> {
  try {
    return (await resolveWebhookUrl(url, ctx.events.allowPrivateUrls)).url.toString();
  } catch (error) {
    if (!(error instanceof UrlRefusedError)) throw error;
    throw new BadUserInputError(`Invalid url: it ${error.message}`, [
      { field: 'url', message: error.message },
    ]);
  }
}

/**
 * Creates a webhook (POST /webhooks). Admin only. The url must resolve to public addresses
 * (400 otherwise, unless WEBHOOK_ALLOW_PRIVATE_URLS); events are known types or `["*"]`. The
 * answer carries the signing secret, which no later read shows.
 */
export async function createWebhook(
  ctx: AuthenticatedContext,
  input: WebhookInput,
): Promise<WebhookDoc> {
  requireAdmin(ctx.principal, 'manage webhooks');
  const events = checkEventTypes(input.events);
  const url = await checkUrl(ctx, input.url);
  const created = await WebhookModel.create({
    _id: `wh_${randomBytes(12).toString('hex')}`,
    url,
    events,
    filter: { pipelineId: input.filter?.pipelineId ?? null, teamId: input.filter?.teamId ?? null },
    description: input.description ?? null,
    secret: newWebhookSecret(),
    enabled: true,
    owner: { subject: ctx.principal.subject, memberId: ctx.principal.memberId },
  });
  return created.toObject<WebhookDoc>();
}

/** Every webhook, oldest first. Admin only. */
export async function listWebhooks(ctx: AuthenticatedContext): Promise<WebhookDoc[]> {
  requireAdmin(ctx.principal, 'manage webhooks');
  return WebhookModel.find().sort({ createdAt: 1, _id: 1 }).lean<WebhookDoc[]>();
}

/** One webhook; 404 unknown. Admin only. */
export async function getWebhook(ctx: AuthenticatedContext, id: string): Promise<WebhookDoc> {
  requireAdmin(ctx.principal, 'manage webhooks');
  const found = await WebhookModel.findById(id).lean<WebhookDoc>();
  if (!found) throw new NotFoundError(`Webhook ${id} not found`);
  return found;
}

/**
 * Changes a webhook (PATCH /webhooks/{id}): its url, events, filter, description, or `enabled`
 * (enabling one that was disabled clears why; its deliveries skipped meanwhile can be replayed).
 */
export async function updateWebhook(
  ctx: AuthenticatedContext,
  id: string,
  patch: WebhookPatch,
): Promise<WebhookDoc> {
  const current = await getWebhook(ctx, id);
  const set: Record<string, unknown> = {};
  if (patch.url !== undefined) set.url = await checkUrl(ctx, patch.url);
  if (patch.events !== undefined) set.events = checkEventTypes(patch.events);
  if (patch.filter !== undefined)
    set.filter = {
      pipelineId: patch.filter?.pipelineId ?? null,
      teamId: patch.filter?.teamId ?? null,
    };
  if (patch.description !== undefined) set.description = patch.description;
  if (patch.enabled === true && !current.enabled)
    Object.assign(set, { enabled: true, disabledReason: null, disabledAt: null });
  if (patch.enabled === false && current.enabled)
    Object.assign(set, {
      enabled: false,
      disabledReason: `disabled by ${ctx.principal.subject}`,
      disabledAt: new Date(),
    });
  const updated = await WebhookModel.findOneAndUpdate(
    { _id: id },
    { $set: set },
    { returnDocument: 'after' },
  )
    .lean<WebhookDoc>()
    .exec();
  if (!updated) throw new NotFoundError(`Webhook ${id} not found`);
  return updated;
}

/** Deletes a webhook and its delivery log. */
export async function deleteWebhook(ctx: AuthenticatedContext, id: string): Promise<void> {
  await getWebhook(ctx, id);
  await WebhookModel.deleteOne({ _id: id });
  await DeliveryModel.deleteMany({ webhookId: id });
}

/**
 * A new signing secret (POST /webhooks/{id}/rotate-secret), answered once. For ROTATION_OVERLAP_MS
 * deliveries carry a signature by the old secret too, so a receiver can switch keys without
 * losing a delivery.
 */
export async function rotateWebhookSecret(
  ctx: AuthenticatedContext,
  id: string,
): Promise<WebhookDoc> {
  const current = await getWebhook(ctx, id);
  const updated = await WebhookModel.findOneAndUpdate(
    { _id: id },
    {
      $set: {
        secret: newWebhookSecret(),
        previousSecret: current.secret,
        previousSecretUntil: new Date(Date.now() + ROTATION_OVERLAP_MS),
      },
    },
    { returnDocument: 'after' },
  ).lean<WebhookDoc>();
  if (!updated) throw new NotFoundError(`Webhook ${id} not found`);
  return updated;
}

/** A page of a webhook's deliveries, newest first. */
export async function listDeliveries(
  ctx: AuthenticatedContext,
  id: string,
  page: { limit: number; after?: { createdAt: Date; id: string } | null },
): Promise<{ deliveries: DeliveryDoc[]; hasMore: boolean }> {
  await getWebhook(ctx, id);
  const filter: Record<string, unknown> = { webhookId: id };
  if (page.after)
    filter.$or = [
      { createdAt: trusted({ $lt: page.after.createdAt }) },
      { createdAt: page.after.createdAt, _id: trusted({ $lt: page.after.id }) },
    ];
  const found = await DeliveryModel.find(filter)
    .sort({ createdAt: -1, _id: -1 })
    .limit(page.limit + 1)
    .lean<DeliveryDoc[]>();
  return { deliveries: found.slice(0, page.limit), hasMore: found.length > page.limit };
}

/**
 * Sends a delivery again now (POST /webhooks/{id}/deliveries/{delivery_id}/retry), whatever its
 * state but `sending`; a failure then follows the retry schedule from its start. The webhook must
 * be enabled (409).
 */
export async function retryDelivery(
  ctx: AuthenticatedContext,
  id: string,
  deliveryIdToRetry: string,
): Promise<DeliveryDoc> {
  const webhook = await getWebhook(ctx, id);
  if (!webhook.enabled)
    throw new ConflictError(
      `Webhook ${id} is disabled (${webhook.disabledReason ?? 'no reason kept'}): enable it first with PATCH /webhooks/${id} {"enabled": true}`,
    );
  const delivery = await DeliveryModel.findOne({
    _id: deliveryIdToRetry,
    webhookId: id,
  }).lean<DeliveryDoc>();
  if (!delivery)
    throw new NotFoundError(`Delivery ${deliveryIdToRetry} of webhook ${id} not found`);
  const updated = await DeliveryModel.findOneAndUpdate(
    { _id: deliveryIdToRetry, status: trusted({ $ne: 'sending' }) },
    {
      $set: {
        status: 'pending',
        nextAttemptAt: new Date(),
        finishedAt: null,
        scheduleStart: delivery.attempts.length,
      },
    },
    { returnDocument: 'after' },
  ).lean<DeliveryDoc>();
  if (!updated)
    throw new ConflictError(
      `Delivery ${deliveryIdToRetry} is being sent now; retry it once it is done`,
    );
  ctx.events.nudge();
  return updated;
}

/**
 * Sends again every event published since `since` that the webhook wants now (its types and
 * filter), as new deliveries (POST /webhooks/{id}/replay), oldest first, at most MAX_REPLAY.
 * Events older than EVENT_RETENTION_DAYS are no longer kept. The webhook must be enabled (409).
 */
export async function replayWebhook(
  ctx: AuthenticatedContext,
  id: string,
  since: Date,
): Promise<{ deliveries: number; lastEventAt: Date | null; complete: boolean }> {
  const webhook = await getWebhook(ctx, id);
  if (!webhook.enabled)
    throw new ConflictError(
      `Webhook ${id} is disabled (${webhook.disabledReason ?? 'no reason kept'}): enable it first with PATCH /webhooks/${id} {"enabled": true}`,
    );
  const events = await EventModel.find({
    seq: trusted({ $ne: null }),
    publishedAt: trusted({ $gte: since }),
  })
    .sort({ seq: 1 })
    .limit(MAX_REPLAY + 1)
    .lean<EventDoc[]>();
  const complete = events.length <= MAX_REPLAY;
  const sent = events.slice(0, MAX_REPLAY);
  const now = new Date();
  const replayId = randomBytes(8).toString('hex');
  // Replay sends what the webhook wants now, whenever it was created.
  const wanted = sent.filter((event) => wants({ ...webhook, createdAt: new Date(0) }, event));
  await insertDeliveries(
    wanted.map((event) =>
      newDelivery(webhook, event, now, {
        id: deliveryId(event._id, webhook._id, replayId),
        replay: true,
      }),
    ),
  );
  ctx.events.nudge();
  return {
    deliveries: wanted.length,
    lastEventAt: sent.length > 0 ? sent[sent.length - 1].publishedAt : null,
    complete,
  };
}
