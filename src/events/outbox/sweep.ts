import { trusted, type Connection, type Model } from 'mongoose';
import { CrmSyncModel } from '../../models/crm-sync.model';
import { ForecastSubmissionModel } from '../../models/forecast-submission.model';
import { EventModel, type EventDoc } from '../../models/event.model';
import { MemberModel } from '../../models/member.model';
import { SettingsModel } from '../../models/settings.model';
import { TargetModel } from '../../models/target.model';
import { confirmDeletionEvent } from './deletion-event';
import { publishCarried } from './publish';
import { EVENTS_POLL_COMMENT } from '../poll-comment';

/** The models whose writes carry their events and publish them at once (carriesEvents). */
const CARRIERS: ReadonlyArray<Model<never>> = [
  MemberModel,
  SettingsModel,
  TargetModel,
  CrmSyncModel,
  ForecastSubmissionModel,
] as unknown as Array<Model<never>>;

/**
 * How long a deletion's event may stay pending before a sweep decides it: longer than any
 * deletion takes, so a sweep does not drop the event of a deletion still under way (and if one
 * does, the deletion publishes its event afresh: deletion-event.ts).
 */
export const PENDING_DELETION_GRACE_MS = 30_000;

/**
 * What crashes left, finished: events still carried by documents whose write committed (the
 * process stopped before publishing them), and deletions' events still pending, confirmed when the
 * document is gone and dropped when it is still there. Safe to run anywhere, any time, by several
 * instances at once: each event has one id, whoever publishes it.
 */
export async function sweepOutbox(connection: Connection, now = Date.now()): Promise<number> {
  let published = 0;
  for (const model of CARRIERS) published += await publishCarried(model, {}, EVENTS_POLL_COMMENT);
  const pending = await EventModel.find({
    seq: null,
    at: trusted({ $lt: new Date(now - PENDING_DELETION_GRACE_MS) }),
  })
    .comment(EVENTS_POLL_COMMENT)
    .lean<EventDoc[]>();
  for (const event of pending) {
    if (!event.check) continue;
    const still = await connection
      .collection(event.check.collection)
      .findOne({ _id: event.check.id } as never, { projection: { _id: 1 } });
    if (still) await EventModel.deleteOne({ _id: event._id, seq: null });
    else {
      await confirmDeletionEvent(event);
      published += 1;
    }
  }
  return published;
}
