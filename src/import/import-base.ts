import { DefinitionModel } from '../models/definition.model';
import { PrunedSnapshotModel } from '../models/pruned-snapshot.model';
import { SnapshotModel, type SnapshotDoc } from '../models/snapshot.model';
import type { NormalisedDefinition } from './normalised.types';

/**
 * What an import builds on: the latest committed snapshot (by the moment it represents, as reads
 * take it). An incremental import applies its changes to it; the guard compares a full import with it.
 */
export async function latestCommittedSnapshot(): Promise<SnapshotDoc | null> {
  return SnapshotModel.findOne({ status: 'committed' })
    .sort({ snapshotAt: -1, _id: 1 })
    .lean<SnapshotDoc>();
}

/** The definitions of a snapshot, as the import's model: they stand when an incremental import leaves `pipelines` out. */
export async function baseDefinitions(snapshotId: string): Promise<NormalisedDefinition[]> {
  const docs = await DefinitionModel.find({ snapshotId }).sort({ displayOrder: 1 }).lean();
  return docs.map((d) => ({
    definitionId: d.definitionId,
    label: d.label,
    displayOrder: d.displayOrder,
    stages: d.stages.map((s) => ({
      id: s.id,
      label: s.label,
      order: s.order,
      isClosed: s.isClosed,
      probability: s.probability,
    })),
  }));
}

/**
 * The seq of the next snapshot written: one past the highest any snapshot has, or had. A removed
 * snapshot's seq is never given again: an opportunity version closed at it must not hold in a
 * later snapshot (an admin may remove the latest written one, whose seq would be next otherwise).
 */
export async function nextSeq(): Promise<number> {
  const [last, removed] = await Promise.all([
    SnapshotModel.findOne({}, { seq: 1 }).sort({ seq: -1 }).lean(),
    PrunedSnapshotModel.findOne({}, { seq: 1 }).sort({ seq: -1 }).lean(),
  ]);
  const highest = Math.max(
    typeof last?.seq === 'number' ? last.seq : 0,
    typeof removed?.seq === 'number' ? removed.seq : 0,
  );
  return highest + 1;
}
