import type { Model } from 'mongoose';
import { EventModel } from '../../models/event.model';
import type { OutboxEntry } from './outbox-entry';
import { publishEvents, randomEventId, takePositions, type NewEvent } from './publish';

/**
 * A deletion cannot carry its event: the document goes. So its event is written first, pending
 * (no position: no tailer or fan-out sees it), naming the document whose absence confirms it;
 * then the document is deleted; then the event gets its position. A crash in between leaves the
 * event pending, and the sweep decides by the committed state (sweep.ts): the document gone means
 * the deletion committed (ids are never reused), so the event is confirmed; still there, the
 * deletion never happened, and the event is dropped.
 *
 * `remove` is the deletion itself; its `deletedCount` says whether it deleted anything (nothing:
 * the event is dropped at once).
 */
export async function deleteWithEvent<T extends { deletedCount: number }>(
  model: Model<never>,
  docId: string,
  entry: OutboxEntry,
  remove: () => Promise<T>,
): Promise<T> {
  const event: NewEvent = {
    _id: randomEventId(),
    type: entry.type,
    at: entry.at,
    data: entry.data,
    audience: entry.audience,
    privacy: entry.privacy,
  };
  await EventModel.collection.insertOne({
    ...event,
    seq: null,
    publishedAt: null,
    fanout: 'pending',
    check: { collection: model.collection.collectionName, id: docId },
  } as never);
  const result = await remove();
  if (result.deletedCount > 0) await confirmDeletionEvent(event).catch(() => undefined);
  else await EventModel.collection.deleteOne({ _id: event._id } as never);
  return result;
}

/**
 * Gives a pending deletion event its position. Found no longer pending (a sweep confirmed or,
 * having seen the deletion still under way past its grace, dropped it), it is published afresh
 * unless it is in the outbox already.
 */
export async function confirmDeletionEvent(event: NewEvent): Promise<void> {
  const seq = await takePositions(1);
  const { matchedCount } = await EventModel.collection.updateOne(
    { _id: event._id, seq: null } as never,
    { $set: { seq, publishedAt: new Date(), check: null } },
  );
  if (matchedCount === 0) await publishEvents([event]);
}
