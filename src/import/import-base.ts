import { DefinitionModel } from '../models/definition.model';
import { OpportunityModel } from '../models/opportunity.model';
import { SnapshotModel, type SnapshotDoc } from '../models/snapshot.model';
import type { NormalisedDefinition } from './normalised.types';
import type { OpportunityRow } from './snapshot-writer';

/**
 * What an import builds on: the latest committed snapshot (by the moment it represents, as reads
 * take it). An incremental import applies its changes to it; the guard compares a full import with it.
 */
export async function latestCommittedSnapshot(): Promise<SnapshotDoc | null> {
  return SnapshotModel.findOne({ status: 'committed' }).sort({ snapshotAt: -1, _id: 1 }).lean<SnapshotDoc>();
}

/** The definitions of a snapshot, as the import's model: they stand when an incremental import leaves `pipelines` out. */
export async function baseDefinitions(snapshotId: string): Promise<NormalisedDefinition[]> {
  const docs = await DefinitionModel.find({ snapshotId }).sort({ displayOrder: 1 }).lean();
  return docs.map((d) => ({
    definitionId: d.definitionId,
    label: d.label,
    displayOrder: d.displayOrder,
    stages: d.stages.map((s) => ({ id: s.id, label: s.label, order: s.order, isClosed: s.isClosed, probability: s.probability })),
  }));
}

/** The opportunities of a snapshot, as rows an incremental import keeps unless a deal changed. */
export async function baseOpportunities(snapshotId: string): Promise<OpportunityRow[]> {
  const docs = await OpportunityModel.find({ snapshotId }, { _id: 0, snapshotId: 0 }).sort({ dealId: 1 }).lean();
  return docs.map((d) => ({
    dealId: d.dealId,
    name: d.name ?? '',
    definitionId: d.definitionId,
    stageId: d.stageId,
    amount: d.amount,
    memberId: d.memberId ?? null,
    teamId: d.teamId ?? null,
    createdAt: d.createdAt ?? null,
    closedAt: d.closedAt ?? null,
    outcome: d.outcome,
  }));
}

/** The ids of a snapshot's deals: what a full import is compared with by the guard. */
export async function baseDealIds(snapshotId: string): Promise<Set<string>> {
  const ids = await OpportunityModel.distinct('dealId', { snapshotId });
  return new Set(ids as string[]);
}
