import { createHash, randomBytes } from 'node:crypto';
import { trusted, type Model } from 'mongoose';
import { EventCounterModel, EventModel, type EventDoc } from '../../models/event.model';
import type { OutboxEntry } from './outbox-entry';

/** An event ready to enter the outbox: everything but its position. */
export type NewEvent = Omit<EventDoc, 'seq' | 'publishedAt' | 'fanout' | 'check'>;

/** Events inserted per command: a big snapshot's deal events go in batches of this many. */
const BATCH = 1000;

/** `evt_` and 32 hex digits of the SHA-256 of `parts`: the same parts always name the same event. */
export function derivedEventId(...parts: string[]): string {
  return `evt_${createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 32)}`;
}

/** A fresh random event id, for events no document carries (a deletion's). */
export function randomEventId(): string {
  return `evt_${randomBytes(16).toString('hex')}`;
}

/** The outbox event of `entry` carried by document `docId` of `collection`. */
export function eventOfEntry(collection: string, docId: string, entry: OutboxEntry): NewEvent {
  const data = entry.subjectKey ? { ...entry.data, [entry.subjectKey]: docId } : entry.data;
  return {
    _id: derivedEventId(collection, docId, entry.id),
    type: entry.type,
    at: entry.at,
    data,
    audience: entry.audience,
    privacy: entry.privacy,
  };
}

/** Takes `count` consecutive positions from the outbox's counter; answers the first. */
export async function takePositions(count: number): Promise<number> {
  const counter = await EventCounterModel.findOneAndUpdate(
    { _id: 'events' },
    { $inc: { seq: count } },
    { upsert: true, returnDocument: 'after' },
  ).lean();
  return counter!.seq - count + 1;
}

/**
 * Puts events into the outbox, each at a position of its own. An event whose id is there already
 * (published before a crash cut its clean-up short, or by another instance's sweep at the same
 * time) is left as it is: its new position stays unused, a gap tailers learn to pass.
 */
export async function publishEvents(events: readonly NewEvent[], now = new Date()): Promise<void> {
  for (let start = 0; start < events.length; start += BATCH) {
    const batch = events.slice(start, start + BATCH);
    const first = await takePositions(batch.length);
    const docs: EventDoc[] = batch.map((event, i) => ({
      ...event,
      seq: first + i,
      publishedAt: now,
      fanout: 'pending',
      check: null,
    }));
    try {
      await EventModel.collection.insertMany(docs as never[], { ordered: false });
    } catch (error) {
      if (!onlyDuplicates(error)) throw error;
    }
  }
}

/** True when every write error of a bulk insert is a duplicate key (11000). */
function onlyDuplicates(error: unknown): boolean {
  const { code, writeErrors } = error as { code?: unknown; writeErrors?: unknown };
  const errors = Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : [];
  if (errors.length === 0) return code === 11000;
  return errors.every(
    (e: { code?: unknown; err?: { code?: unknown } }) => (e.code ?? e.err?.code) === 11000,
  );
}

/** A document carrying events. */
interface Carrier {
  _id: unknown;
  outbox?: OutboxEntry[];
}

/**
 * Publishes the events carried by the documents of `model` that match `filter`, then takes them
 * out of the documents. The model's own query rules apply (a member an import has not published
 * yet is not found, so its events wait with it). Answers how many events were published.
 */
export async function publishCarried(
  model: Model<never>,
  filter: Record<string, unknown>,
  comment?: string,
): Promise<number> {
  const query = model.find({ ...filter, 'outbox.id': trusted({ $exists: true }) }, { outbox: 1 });
  if (comment !== undefined) query.comment(comment);
  const carriers = await query.lean<Carrier[]>().exec();
  return publishFrom(model, carriers);
}

/** Publishes what `carriers` (documents of `model`, read with their `outbox`) carry. */
export async function publishFrom(
  model: Model<never>,
  carriers: readonly Carrier[],
  expand: (carrier: Carrier, entry: OutboxEntry) => Promise<NewEvent[]> | NewEvent[] = (
    carrier,
    entry,
  ) => [eventOfEntry(model.collection.collectionName, String(carrier._id), entry)],
): Promise<number> {
  let published = 0;
  for (const carrier of carriers) {
    const entries = carrier.outbox ?? [];
    if (entries.length === 0) continue;
    const events: NewEvent[] = [];
    for (const entry of entries) events.push(...(await expand(carrier, entry)));
    await publishEvents(events);
    // Through the collection: taking the entries out changes nothing a reader sees, so no
    // version moves for it.
    await model.collection.updateOne(
      { _id: carrier._id } as never,
      {
        $pull: { outbox: { id: { $in: entries.map((e) => e.id) } } },
      } as never,
    );
    published += events.length;
  }
  return published;
}
