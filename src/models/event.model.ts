import { Schema, model } from 'mongoose';

/**
 * Who may see an event beyond its type filter: everyone who may read the data (`public`), admins
 * only (`admins`: sync runs, whose status only admins read), or, for values derived from targets
 * (`targets`), whoever may read the targets of every member listed; the others get the event
 * without the fields named in `redact`, or not at all when `redact` is empty.
 */
export type EventPrivacy =
  | { kind: 'public' }
  | { kind: 'admins' }
  | { kind: 'targets'; of: Array<{ memberId: string; teamId: string }>; redact: string[] };

/** What an event is about, for webhook filters and the `pipelineId` of the subscription. */
export interface EventAudience {
  pipelineIds: string[];
  teamIds: string[];
}

/** One event of the outbox, as stored. */
export interface EventDoc {
  /** `evt_` and 32 hex digits: the Standard Webhooks message id (`webhook-id`). */
  _id: string;
  /**
   * Position in the outbox, from one counter every publisher increments: tailers read by it.
   * Null while the event waits for the change it describes to be confirmed (a deletion).
   */
  seq: number | null;
  type: string;
  /** When the change was made. */
  at: Date;
  /** When it entered the outbox; null while pending. */
  publishedAt: Date | null;
  data: Record<string, unknown>;
  audience: EventAudience;
  privacy: EventPrivacy;
  /** `pending` until the instance that fans it out has made its webhook deliveries. */
  fanout: 'pending' | 'done';
  /** A pending deletion's event: the document whose absence confirms it. */
  check?: { collection: string; id: string } | null;
}

const eventSchema = new Schema<EventDoc>(
  {
    _id: { type: String, required: true },
    seq: { type: Number, default: null },
    type: { type: String, required: true },
    at: { type: Date, required: true },
    publishedAt: { type: Date, default: null },
    data: { type: Schema.Types.Mixed, default: {} },
    audience: { type: Schema.Types.Mixed, default: () => ({ pipelineIds: [], teamIds: [] }) },
    privacy: { type: Schema.Types.Mixed, default: () => ({ kind: 'public' }) },
    fanout: { type: String, enum: ['pending', 'done'], default: 'pending' },
    check: { type: Schema.Types.Mixed, default: null },
  },
  { collection: 'events', versionKey: false, minimize: false },
);

// Tailing (seq > last), pending deletions (seq null), fan-out of new events, replay and retention by time.
eventSchema.index({ seq: 1 });
eventSchema.index({ fanout: 1, seq: 1 });
eventSchema.index({ at: 1 });

export const EventModel = model<EventDoc>('Event', eventSchema);

/** The one counter the outbox's positions come from (`_id: "events"`). */
const eventCounterSchema = new Schema<{ _id: string; seq: number }>(
  { _id: { type: String, required: true }, seq: { type: Number, default: 0 } },
  { collection: 'event_counters', versionKey: false },
);

export const EventCounterModel = model('EventCounter', eventCounterSchema);
