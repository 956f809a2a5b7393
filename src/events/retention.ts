import { trusted } from 'mongoose';
import { EventModel } from '../models/event.model';
import { DeliveryModel } from '../models/webhook-delivery.model';
import { EVENTS_POLL_COMMENT } from './poll-comment';

/** Events looked at per round of clean-up. */
const ROUND = 5_000;

/**
 * Removes what EVENT_RETENTION_DAYS no longer keeps: deliveries finished before the cut-off, and
 * events published before it that are delivered (fanned out, and no delivery of theirs still
 * waiting or being sent). An event still owed to an endpoint stays however old it is.
 */
export async function pruneEvents(retentionDays: number, now = Date.now()): Promise<number> {
  const cutoff = new Date(now - retentionDays * 86_400_000);
  await DeliveryModel.deleteMany({ finishedAt: trusted({ $lt: cutoff }) }).comment(
    EVENTS_POLL_COMMENT,
  );
  const old = await EventModel.find(
    { publishedAt: trusted({ $lt: cutoff }), fanout: 'done' },
    { _id: 1 },
  )
    .limit(ROUND)
    .comment(EVENTS_POLL_COMMENT)
    .lean<Array<{ _id: string }>>();
  if (old.length === 0) return 0;
  const ids = old.map((e) => e._id);
  const owed = new Set(
    (
      await DeliveryModel.find(
        {
          eventId: trusted({ $in: ids }),
          status: trusted({ $in: ['pending', 'sending'] }),
        },
        { eventId: 1 },
      ).lean<Array<{ eventId: string }>>()
    ).map((d) => d.eventId),
  );
  const removable = ids.filter((id) => !owed.has(id));
  if (removable.length === 0) return 0;
  const { deletedCount } = await EventModel.deleteMany({ _id: trusted({ $in: removable }) });
  return deletedCount;
}
