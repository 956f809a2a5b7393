import { trusted, type Model, type MongooseQueryMiddleware, type Schema } from 'mongoose';
import { outboxEntrySchema, type OutboxEntry } from './outbox-entry';
import { publishCarried } from './publish';

const QUERY_WRITES: MongooseQueryMiddleware[] = ['updateOne', 'updateMany', 'findOneAndUpdate'];

/** The ids of the entries an update pushes (`pushEvents`), if any. */
function pushedEntryIds(update: unknown): string[] {
  const push = (update as { $push?: { outbox?: { $each?: OutboxEntry[] } | OutboxEntry } } | null)
    ?.$push?.outbox;
  if (!push) return [];
  const entries = '$each' in push && Array.isArray(push.$each) ? push.$each : [push as OutboxEntry];
  return entries.map((entry) => entry.id);
}

/**
 * Schema plugin of a model whose writes carry their events (outbox-entry.ts): adds the `outbox`
 * field and, unless `publish: false`, publishes what a write carried once the write is
 * acknowledged, before the write's promise resolves. Should publishing fail (the database went
 * away after the write), the events stay in the document, and every instance's sweep publishes
 * them later (sweep.ts): the write is not failed for it, since the change is committed.
 *
 * `publish: false` is for documents whose events may only go out later than their write: a
 * snapshot's, once its import has committed and published what it created.
 */
export function carriesEvents(options: { publish?: boolean } = {}): (schema: Schema) => void {
  return (schema) => {
    schema.add({ outbox: { type: [outboxEntrySchema], default: undefined } });
    schema.index({ 'outbox.id': 1 }, { sparse: true });
    if (options.publish === false) return;
    const publish = async (model: Model<never>, filter: Record<string, unknown>) => {
      await publishCarried(model, filter).catch(() => undefined);
    };
    schema.post(QUERY_WRITES, async function (this: { model: Model<never>; getUpdate(): unknown }) {
      const ids = pushedEntryIds(this.getUpdate());
      if (ids.length > 0) await publish(this.model, { 'outbox.id': trusted({ $in: ids }) });
    });
    schema.post(
      'save',
      async function (this: { _id: unknown; outbox?: OutboxEntry[]; constructor: Model<never> }) {
        if (this.outbox && this.outbox.length > 0)
          await publish(this.constructor, { _id: this._id });
      },
    );
  };
}
