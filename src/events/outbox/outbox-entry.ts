import { randomUUID } from 'node:crypto';
import { Schema } from 'mongoose';
import type { EventAudience, EventPrivacy } from '../../models/event.model';
import type { EventType } from '../event-types';

/**
 * An event waiting in the document whose change it describes. It is written by the same
 * single-document write as the change (an insert, or an update's `$push`), which MongoDB and the
 * embedded store apply atomically: the change is committed with its event or not at all, without
 * transactions. Publishing copies it into the outbox (`events`) under an id derived from the
 * document and the entry, then removes it from the document; repeating that after a crash
 * publishes the same event again under the same id, which the outbox refuses as a duplicate.
 */
export interface OutboxEntry {
  /** Unique within its document. */
  id: string;
  type: EventType;
  /** When the change was made. */
  at: Date;
  data: Record<string, unknown>;
  audience: EventAudience;
  privacy: EventPrivacy;
  /**
   * A field of `data` that the publisher sets to the carrying document's `_id`: for one entry
   * written to several documents by one update (each run a sync finds interrupted).
   */
  subjectKey?: string | null;
}

export const outboxEntrySchema = new Schema(
  {
    id: { type: String, required: true },
    type: { type: String, required: true },
    at: { type: Date, required: true },
    data: { type: Schema.Types.Mixed, default: {} },
    audience: { type: Schema.Types.Mixed, default: () => ({ pipelineIds: [], teamIds: [] }) },
    privacy: { type: Schema.Types.Mixed, default: () => ({ kind: 'public' }) },
    subjectKey: { type: String, default: null },
  },
  { _id: false, minimize: false },
);

/** What an event is about and who may see it; by default no pipeline or team, and everyone. */
export interface EventOptions {
  audience?: Partial<EventAudience>;
  privacy?: EventPrivacy;
  subjectKey?: string;
  at?: Date;
}

/** A new entry of `type` with `data`. */
export function outboxEvent(
  type: EventType,
  data: Record<string, unknown>,
  options: EventOptions = {},
): OutboxEntry {
  return {
    id: randomUUID(),
    type,
    at: options.at ?? new Date(),
    data,
    audience: {
      pipelineIds: options.audience?.pipelineIds ?? [],
      teamIds: options.audience?.teamIds ?? [],
    },
    privacy: options.privacy ?? { kind: 'public' },
    subjectKey: options.subjectKey ?? null,
  };
}

/**
 * The fields an insert carries its events in: `Model.create({ ...fields, ...withEvents(e) })`.
 * The document is then published as soon as it is written (carriesEvents).
 */
export function withEvents(...entries: OutboxEntry[]): { outbox: OutboxEntry[] } {
  return { outbox: entries };
}

/**
 * The update operator that carries events with an update:
 * `Model.updateOne(filter, { $set: {...}, ...pushEvents(e) })`.
 */
export function pushEvents(...entries: OutboxEntry[]): {
  $push: { outbox: { $each: OutboxEntry[] } };
} {
  return { $push: { outbox: { $each: entries } } };
}
