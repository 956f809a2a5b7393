// trusted(): the operators here are ours, never client input (filters are sanitised globally).
import { trusted } from 'mongoose';
import { retainedUnits, snapshotsToKeep } from '../domain/snapshot-retention';
import { DealStatesModel } from '../models/deal-states.model';
import { DefinitionModel } from '../models/definition.model';
import { OPEN_SEQ, OpportunityModel } from '../models/opportunity.model';
import { PipelineFactsModel } from '../models/pipeline-facts.model';
import { PipelineModel } from '../models/pipeline.model';
import {
  PrunedSnapshotModel,
  type PrunedSnapshotDoc,
  type SnapshotRemover,
} from '../models/pruned-snapshot.model';
import { SnapshotModel } from '../models/snapshot.model';
import { readAccountSettings } from '../services/settings.service';

/** The moments of a removal, in order; a crash after any of them is finished by the next removal. */
export type PruneStep =
  /** the snapshots to remove are recorded in `pruned_snapshots`, not done */
  | 'recorded'
  /** their snapshot records are gone: no read finds them any more */
  | 'snapshots-removed'
  /** their definitions, pipelines, facts and deal states are gone */
  | 'contents-removed'
  /** the opportunity versions no kept snapshot holds are gone */
  | 'versions-removed';

export interface PruneOptions {
  /** SNAPSHOT_RETENTION_DAYS. */
  retentionDays: number;
  now?: Date;
  /**
   * Called after each step; a throw stops the removal right there, as a crash would. For
   * crash-recovery tests only.
   */
  afterStep?: (step: PruneStep) => void;
}

/**
 * Removes the snapshots the retention policy does not keep (domain/snapshot-retention.ts), with
 * everything only they hold: definitions, pipelines, facts, and the opportunity versions whose
 * span holds no kept snapshot. Runs under the import lease, after an import commits (nothing else
 * writes snapshots meanwhile). Answers the ids removed.
 *
 * Crash-safe without transactions: the snapshots are recorded first (`pruned_snapshots`, not
 * done), their records removed next (from then on no read reaches them), then what they held, and
 * the record marked done last. Each step is safe to repeat, and a removal cut short is finished
 * by the next one before it decides anything else. What a kept snapshot reads is never touched:
 * a version is removed only when no kept snapshot's seq lies in its span.
 */
export async function pruneSnapshots(options: PruneOptions): Promise<string[]> {
  const step = options.afterStep ?? (() => undefined);
  const unfinished = await PrunedSnapshotModel.find({ done: false }).lean<PrunedSnapshotDoc[]>();
  const { period } = await readAccountSettings();
  const committed = await SnapshotModel.find(
    { status: 'committed' },
    { snapshotAt: 1, seq: 1, demo: 1 },
  ).lean();
  const keep = snapshotsToKeep(
    committed.map((s) => ({
      id: s._id as string,
      snapshotAt: new Date(s.snapshotAt),
      seq: s.seq,
      demo: s.demo === true,
    })),
    { days: options.retentionDays, units: retainedUnits(period ?? null) },
  );
  const prunedAt = options.now ?? new Date();
  const recorded = new Set(unfinished.map((s) => s._id));
  const fresh = committed
    .filter((s) => !keep.has(s._id as string) && !recorded.has(s._id as string))
    .map((s) => ({
      _id: s._id as string,
      seq: s.seq,
      snapshotAt: new Date(s.snapshotAt),
      prunedAt,
      removedBy: 'retention' as const,
      retentionDays: options.retentionDays,
      done: false,
    }));
  if (fresh.length === 0 && unfinished.length === 0) return [];
  return carryOutRemovals(unfinished, fresh, step);
}

/**
 * Removes one committed snapshot an admin names (DEL /pipelines/snapshots/{id}), as retention
 * removes one, recorded as the admin's. Any removal cut short is finished with it. Runs under the
 * import lease. Whatever snapshot is then the latest by `snapshotAt` is what reads see.
 */
export async function removeSnapshotAsAdmin(
  snapshot: { _id: string; seq: number; snapshotAt: Date },
  options: { now?: Date; afterStep?: (step: PruneStep) => void } = {},
): Promise<void> {
  const unfinished = await PrunedSnapshotModel.find({ done: false }).lean<PrunedSnapshotDoc[]>();
  // One cut short between its record and the removal of the snapshot is already on its way out.
  const fresh = unfinished.some((s) => s._id === snapshot._id)
    ? []
    : [
        {
          _id: snapshot._id,
          seq: snapshot.seq,
          snapshotAt: new Date(snapshot.snapshotAt),
          prunedAt: options.now ?? new Date(),
          removedBy: 'admin' as const,
          retentionDays: null,
          done: false,
        },
      ];
  await carryOutRemovals(unfinished, fresh, options.afterStep ?? (() => undefined));
}

/**
 * The steps of a removal once decided: `fresh` recorded, then the snapshot records of `fresh`
 * and of the `unfinished` ones removed, then what they held, then every record marked done.
 * Answers the ids removed.
 */
async function carryOutRemovals(
  unfinished: PrunedSnapshotDoc[],
  fresh: Array<PrunedSnapshotDoc & { removedBy: SnapshotRemover }>,
  step: (step: PruneStep) => void,
): Promise<string[]> {
  if (fresh.length > 0) {
    await PrunedSnapshotModel.bulkWrite(
      fresh.map((doc) => ({
        replaceOne: { filter: { _id: doc._id }, replacement: doc, upsert: true },
      })),
    );
  }
  step('recorded');
  const removing = [...unfinished, ...fresh];
  const ids = removing.map((s) => s._id);
  await SnapshotModel.deleteMany({ _id: trusted({ $in: ids }) });
  step('snapshots-removed');
  const ofRemoved = { snapshotId: trusted({ $in: ids }) };
  await PipelineFactsModel.deleteMany(ofRemoved);
  await DealStatesModel.deleteMany(ofRemoved);
  await PipelineModel.deleteMany(ofRemoved);
  await DefinitionModel.deleteMany(ofRemoved);
  step('contents-removed');
  await removeUnheldVersions(removing.map((s) => s.seq));
  step('versions-removed');
  await PrunedSnapshotModel.updateMany({ _id: trusted({ $in: ids }) }, { $set: { done: true } });
  return ids;
}

/**
 * Removes the opportunity versions that held only in removed snapshots. Between two consecutive
 * remaining snapshots `a < b` (by seq) with a removed one in between, a version whose span
 * [fromSeq, toSeq) starts after `a` and ends by `b` holds in no remaining snapshot; any other
 * version starting there holds in `b`. Remaining: every snapshot record left, pending ones too.
 */
async function removeUnheldVersions(removedSeqs: number[]): Promise<void> {
  if (removedSeqs.length === 0) return;
  const remaining = (await SnapshotModel.find({}, { _id: 0, seq: 1 }).lean())
    .map((s) => s.seq)
    .sort((x, y) => x - y);
  const gaps = new Map<number, number>();
  for (const seq of removedSeqs) {
    let after = 0;
    let before = OPEN_SEQ;
    for (const kept of remaining) {
      if (kept < seq) after = kept;
      else if (kept > seq) {
        before = kept;
        break;
      }
    }
    gaps.set(after, before);
  }
  for (const [after, before] of gaps) {
    await OpportunityModel.deleteMany({
      fromSeq: trusted({ $gt: after }),
      toSeq: trusted({ $lte: before }),
    });
  }
}

/** Why a removed snapshot is gone, for the 404 of a request naming it. */
export function removalMessage(
  removed: Pick<
    PrunedSnapshotDoc,
    '_id' | 'snapshotAt' | 'prunedAt' | 'removedBy' | 'retentionDays'
  >,
): string {
  const named = `Snapshot ${removed._id} (${new Date(removed.snapshotAt).toISOString()})`;
  if (removed.removedBy === 'admin')
    return `${named} was removed by an admin on ${new Date(removed.prunedAt).toISOString()}`;
  return (
    `${named} was removed by retention (SNAPSHOT_RETENTION_DAYS=${removed.retentionDays}): ` +
    'older snapshots are kept only as the last one of each period'
  );
}
