import { trusted } from 'mongoose';
import { EventModel, type EventDoc } from '../models/event.model';
import { EVENTS_POLL_COMMENT } from './poll-comment';

/** Events read per poll. */
const PAGE = 1000;

/**
 * How long a position is waited for. Positions are taken from a counter before the event is
 * inserted, so a later position can be visible before an earlier one; a position still missing
 * after this long was taken by a publisher that stopped, or by an event another publisher had
 * inserted already (a duplicate), and will never be filled.
 */
export const GAP_WAIT_MS = 30_000;

/**
 * One instance's reading of the outbox, by position: every event published by any instance (or
 * CLI) is seen once, by polling (`seq` after the last seen), which works on a standalone MongoDB
 * and the embedded store alike, where change streams do not. Positions missing when later ones are
 * read are remembered and read again until they appear or GAP_WAIT_MS passes, so an event whose
 * insert was overtaken by a later one is still seen.
 */
export class EventTail {
  private last: number | null = null;

  private readonly gaps = new Map<number, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Starts from the end of the outbox as it is: only events published from now on are read. */
  async start(): Promise<void> {
    const newest = await EventModel.findOne({ seq: trusted({ $ne: null }) }, { seq: 1 })
      .sort({ seq: -1 })
      .comment(EVENTS_POLL_COMMENT)
      .lean<{ seq: number }>();
    this.last = newest?.seq ?? 0;
  }

  /** The events published since the last read, and those of positions that were missing. */
  async read(): Promise<EventDoc[]> {
    if (this.last === null) await this.start();
    const found: EventDoc[] = [];
    if (this.gaps.size > 0) {
      const late = await EventModel.find({ seq: trusted({ $in: [...this.gaps.keys()] }) })
        .comment(EVENTS_POLL_COMMENT)
        .lean<EventDoc[]>();
      for (const event of late) {
        this.gaps.delete(event.seq!);
        found.push(event);
      }
      const cutoff = this.now() - GAP_WAIT_MS;
      for (const [seq, since] of this.gaps) if (since < cutoff) this.gaps.delete(seq);
    }
    const fresh = await EventModel.find({ seq: trusted({ $gt: this.last }) })
      .sort({ seq: 1 })
      .limit(PAGE)
      .comment(EVENTS_POLL_COMMENT)
      .lean<EventDoc[]>();
    for (const event of fresh) {
      for (let missing = this.last! + 1; missing < event.seq!; missing += 1)
        this.gaps.set(missing, this.now());
      this.last = event.seq!;
      found.push(event);
    }
    return found;
  }
}
