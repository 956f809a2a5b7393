import { BadUserInputError, ErrorCode } from '../../errors';
import type { DeliveryDoc } from '../../models/webhook-delivery.model';
import type { WebhookDoc } from '../../models/webhook.model';
import * as webhooks from '../../services/webhook.service';
import { envelopeSchema } from '../envelope-schema';
import {
  CreateWebhookBody,
  ListDeliveriesQuery,
  ReplayBody,
  RetryDeliveryInput,
  UpdateWebhookBody,
  WebhookIdInput,
} from '../inputs/webhook.inputs';
import { ok, type RouteDefinition } from '../route-definition';
import { adminOnly } from '../route-roles';

const TAG = 'Events';
const nullableString = { type: ['string', 'null'] };
const nullableDate = { type: ['string', 'null'], format: 'date-time' };

const WEBHOOK_SCHEMA = {
  type: 'object',
  required: ['webhook_id', 'url', 'events', 'filter', 'description', 'enabled'],
  properties: {
    webhook_id: { type: 'string' },
    url: { type: 'string' },
    events: { type: 'array', items: { type: 'string' } },
    filter: {
      type: 'object',
      properties: { pipeline_id: nullableString, team_id: nullableString },
    },
    description: nullableString,
    enabled: { type: 'boolean' },
    disabled_reason: nullableString,
    disabled_at: nullableDate,
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
    secret: { type: 'string', description: 'whsec_<base64>: answered on create and rotation only' },
  },
};

const DELIVERY_SCHEMA = {
  type: 'object',
  required: ['delivery_id', 'event_id', 'type', 'status', 'attempts'],
  properties: {
    delivery_id: { type: 'string' },
    event_id: { type: 'string' },
    type: { type: 'string' },
    status: { type: 'string', enum: ['pending', 'sending', 'succeeded', 'failed', 'skipped'] },
    response_status: { type: ['integer', 'null'] },
    attempted_at: nullableDate,
    next_attempt_at: nullableDate,
    replay: { type: 'boolean' },
    attempts: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          attempted_at: { type: 'string', format: 'date-time' },
          response_status: { type: ['integer', 'null'] },
          error: nullableString,
          duration_ms: { type: 'integer' },
        },
      },
    },
  },
};

function iso(date: Date | null | undefined): string | null {
  return date ? date.toISOString() : null;
}

/** A webhook in the REST shape; its secret only when `withSecret`. */
function webhookView(doc: WebhookDoc, withSecret = false): Record<string, unknown> {
  return {
    webhook_id: doc._id,
    url: doc.url,
    events: doc.events,
    filter: { pipeline_id: doc.filter?.pipelineId ?? null, team_id: doc.filter?.teamId ?? null },
    description: doc.description,
    enabled: doc.enabled,
    disabled_reason: doc.disabledReason,
    disabled_at: iso(doc.disabledAt),
    created_at: iso(doc.createdAt),
    updated_at: iso(doc.updatedAt),
    ...(withSecret ? { secret: doc.secret } : {}),
  };
}

function deliveryView(doc: DeliveryDoc): Record<string, unknown> {
  const last = doc.attempts[doc.attempts.length - 1];
  return {
    delivery_id: doc._id,
    event_id: doc.eventId,
    type: doc.type,
    status: doc.status,
    response_status: last?.responseStatus ?? null,
    attempted_at: iso(last?.at),
    next_attempt_at: iso(doc.nextAttemptAt),
    replay: doc.replay,
    attempts: doc.attempts.map((a) => ({
      attempted_at: a.at.toISOString(),
      response_status: a.responseStatus,
      error: a.error,
      duration_ms: a.durationMs,
    })),
  };
}

function encodeCursor(doc: DeliveryDoc): string {
  return Buffer.from(`${doc.createdAt.toISOString()}|${doc._id}`).toString('base64url');
}

function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  const [at, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(at ?? '');
  if (!id || Number.isNaN(createdAt.getTime())) {
    const message = 'must be a next_cursor from a previous answer';
    throw new BadUserInputError(`Invalid cursor: ${message}`, [{ field: 'cursor', message }]);
  }
  return { createdAt, id };
}

const one = envelopeSchema({ webhook: WEBHOOK_SCHEMA }, ['webhook']);

export const webhooksRoutes: RouteDefinition[] = [
  {
    method: 'POST',
    path: '/webhooks',
    summary:
      'Create a webhook (admin): url, event types or ["*"], optional filter; answers its signing secret, once',
    tag: TAG,
    authenticated: true,
    roles: adminOnly('manage webhooks'),
    input: CreateWebhookBody,
    response: one,
    handler: async (ctx, input: CreateWebhookBody) => {
      const created = await webhooks.createWebhook(ctx, {
        url: input.url,
        events: input.events,
        filter: { pipelineId: input.filter?.pipeline_id, teamId: input.filter?.team_id },
        description: input.description,
      });
      return ok('Webhook created', { webhook: webhookView(created, true) });
    },
  } satisfies RouteDefinition<CreateWebhookBody>,
  {
    method: 'GET',
    path: '/webhooks',
    summary: 'List the webhooks (admin)',
    tag: TAG,
    authenticated: true,
    roles: adminOnly('manage webhooks'),
    response: envelopeSchema({ webhooks: { type: 'array', items: WEBHOOK_SCHEMA } }, ['webhooks']),
    handler: async (ctx) => {
      const all = await webhooks.listWebhooks(ctx);
      return ok(`${all.length} webhook(s) found`, { webhooks: all.map((w) => webhookView(w)) });
    },
  },
  {
    method: 'GET',
    path: '/webhooks/:id',
    summary: 'Read a webhook (admin), without its secret',
    tag: TAG,
    authenticated: true,
    roles: adminOnly('manage webhooks'),
    input: WebhookIdInput,
    response: one,
    handler: async (ctx, input: WebhookIdInput) =>
      ok('Webhook found', { webhook: webhookView(await webhooks.getWebhook(ctx, input.id)) }),
  } satisfies RouteDefinition<WebhookIdInput>,
  {
    method: 'PATCH',
    path: '/webhooks/:id',
    summary: 'Change a webhook (admin): url, events, filter, description, enabled',
    tag: TAG,
    authenticated: true,
    roles: adminOnly('manage webhooks'),
    input: UpdateWebhookBody,
    response: one,
    handler: async (ctx, input: UpdateWebhookBody) => {
      const updated = await webhooks.updateWebhook(ctx, input.id, {
        url: input.url,
        events: input.events,
        filter:
          input.filter === undefined
            ? undefined
            : input.filter === null
              ? null
              : { pipelineId: input.filter.pipeline_id, teamId: input.filter.team_id },
        description: input.description,
        enabled: input.enabled,
      });
      return ok('Webhook updated', { webhook: webhookView(updated) });
    },
  } satisfies RouteDefinition<UpdateWebhookBody>,
  {
    method: 'DELETE',
    path: '/webhooks/:id',
    summary: 'Delete a webhook and its delivery log (admin)',
    tag: TAG,
    authenticated: true,
    roles: adminOnly('manage webhooks'),
    input: WebhookIdInput,
    response: envelopeSchema({}),
    handler: async (ctx, input: WebhookIdInput) => {
      await webhooks.deleteWebhook(ctx, input.id);
      return ok(`Webhook ${input.id} deleted`, {});
    },
  } satisfies RouteDefinition<WebhookIdInput>,
  {
    method: 'POST',
    path: '/webhooks/:id/rotate-secret',
    summary: 'A new signing secret (admin), answered once; the old one signs too for 24 hours',
    tag: TAG,
    authenticated: true,
    roles: adminOnly('manage webhooks'),
    input: WebhookIdInput,
    response: one,
    handler: async (ctx, input: WebhookIdInput) =>
      ok('Secret rotated', {
        webhook: webhookView(await webhooks.rotateWebhookSecret(ctx, input.id), true),
      }),
  } satisfies RouteDefinition<WebhookIdInput>,
  {
    method: 'GET',
    path: '/webhooks/:id/deliveries',
    summary: "A webhook's deliveries with their attempts, newest first (admin)",
    tag: TAG,
    authenticated: true,
    roles: adminOnly('manage webhooks'),
    input: ListDeliveriesQuery,
    response: envelopeSchema(
      {
        deliveries: { type: 'array', items: DELIVERY_SCHEMA },
        next_cursor: { type: ['string', 'null'] },
      },
      ['deliveries', 'next_cursor'],
    ),
    handler: async (ctx, input: ListDeliveriesQuery) => {
      const page = await webhooks.listDeliveries(ctx, input.id, {
        limit: input.limit,
        after: input.cursor ? decodeCursor(input.cursor) : null,
      });
      const last = page.deliveries[page.deliveries.length - 1];
      return ok(`${page.deliveries.length} deliveries found`, {
        deliveries: page.deliveries.map(deliveryView),
        next_cursor: page.hasMore && last ? encodeCursor(last) : null,
      });
    },
  } satisfies RouteDefinition<ListDeliveriesQuery>,
  {
    method: 'POST',
    path: '/webhooks/:id/deliveries/:delivery_id/retry',
    summary: 'Send a delivery again now (admin)',
    tag: TAG,
    authenticated: true,
    roles: adminOnly('manage webhooks'),
    errors: [ErrorCode.NOT_FOUND, ErrorCode.CONFLICT],
    input: RetryDeliveryInput,
    response: envelopeSchema({ delivery: DELIVERY_SCHEMA }, ['delivery']),
    handler: async (ctx, input: RetryDeliveryInput) => {
      const delivery = await webhooks.retryDelivery(ctx, input.id, input.delivery_id);
      return ok(`Delivery ${delivery._id} will be sent again now`, {
        delivery: deliveryView(delivery),
      });
    },
  } satisfies RouteDefinition<RetryDeliveryInput>,
  {
    method: 'POST',
    path: '/webhooks/:id/replay',
    summary: 'Send again every event since a time that the webhook wants (admin)',
    tag: TAG,
    authenticated: true,
    roles: adminOnly('manage webhooks'),
    errors: [ErrorCode.NOT_FOUND, ErrorCode.CONFLICT],
    input: ReplayBody,
    response: envelopeSchema(
      {
        deliveries: { type: 'integer' },
        last_event_at: nullableDate,
        complete: { type: 'boolean' },
      },
      ['deliveries', 'last_event_at', 'complete'],
    ),
    handler: async (ctx, input: ReplayBody) => {
      const replay = await webhooks.replayWebhook(ctx, input.id, new Date(input.since));
      return ok(
        `${replay.deliveries} event(s) since ${input.since} will be sent again` +
          (replay.complete ? '' : `; replay again since last_event_at for the rest`),
        {
          deliveries: replay.deliveries,
          last_event_at: iso(replay.lastEventAt),
          complete: replay.complete,
        },
      );
    },
  } satisfies RouteDefinition<ReplayBody>,
] as RouteDefinition[];
