import { Schema, model } from 'mongoose';

/**
 * `pending` (waiting for its next attempt), `sending` (an instance holds its lease and is
 * posting), `succeeded`, `failed` (every attempt failed, or the endpoint answered 410), `skipped`
 * (the endpoint was disabled before it was sent).
 */
export type DeliveryStatus = 'pending' | 'sending' | 'succeeded' | 'failed' | 'skipped';
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = [
  'pending',
  'sending',
  'succeeded',
  'failed',
  'skipped',
];

export interface DeliveryAttempt {
  at: Date;
  /** The endpoint's HTTP status; null when there was no answer (time-out, refused, network). */
  responseStatus: number | null;
  /** Why it failed, when it did. */
  error: string | null;
  durationMs: number;
}

/** One event for one webhook, with its attempts. */
export interface DeliveryDoc {
  /** `dlv_` and 32 hex digits; the same for the same event and webhook (fan-out is idempotent). */
  _id: string;
  webhookId: string;
  eventId: string;
  eventSeq: number;
  type: string;
  status: DeliveryStatus;
  attempts: DeliveryAttempt[];
  nextAttemptAt: Date | null;
  /** The instance holding the delivery while `sending`, and until when. */
  leaseOwner: string | null;
  leaseUntil: Date | null;
  /** Made by a replay rather than by the event's fan-out. */
  replay: boolean;
  /** The attempt the retry schedule counts from: 0, or the first attempt after a manual retry. */
  scheduleStart: number;
  createdAt: Date;
  finishedAt: Date | null;
}

const attemptSchema = new Schema<DeliveryAttempt>(
  {
    at: { type: Date, required: true },
    responseStatus: { type: Number, default: null },
    error: { type: String, default: null },
    durationMs: { type: Number, required: true },
  },
  { _id: false },
);

const deliverySchema = new Schema<DeliveryDoc>(
  {
    _id: { type: String, required: true },
    webhookId: { type: String, required: true },
    eventId: { type: String, required: true },
    eventSeq: { type: Number, required: true },
    type: { type: String, required: true },
    status: { type: String, enum: DELIVERY_STATUSES, required: true },
    attempts: { type: [attemptSchema], default: [] },
    nextAttemptAt: { type: Date, default: null },
    leaseOwner: { type: String, default: null },
    leaseUntil: { type: Date, default: null },
    replay: { type: Boolean, default: false },
    scheduleStart: { type: Number, default: 0 },
    createdAt: { type: Date, required: true },
    finishedAt: { type: Date, default: null },
  },
  { collection: 'webhook_deliveries', versionKey: false },
);

// Due deliveries, expired leases, a webhook's log (newest first), retention.
deliverySchema.index({ status: 1, nextAttemptAt: 1 });
deliverySchema.index({ status: 1, leaseUntil: 1 });
deliverySchema.index({ webhookId: 1, createdAt: -1, _id: -1 });
deliverySchema.index({ finishedAt: 1 });
deliverySchema.index({ eventId: 1 });

export const DeliveryModel = model<DeliveryDoc>('WebhookDelivery', deliverySchema);
