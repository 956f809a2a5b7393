// trusted(): the `$in` operators here are ours, never client input (filters are sanitised globally).
import { trusted } from 'mongoose';
import { DefinitionModel } from '../models/definition.model';
import { OpportunityModel } from '../models/opportunity.model';
import { PipelineFactsModel } from '../models/pipeline-facts.model';
import { PipelineModel } from '../models/pipeline.model';
import type { NormalisedDefinition } from './normalised.types';
import type { PipelineRow } from './build-pipelines';
import type { DealState } from './opportunity-state';

/** Opportunities per insertMany: big enough to amortise round trips, small enough for one BSON message. */
export const OPPORTUNITY_BATCH = 2000;

/** The member and team an opportunity belongs to, from the owner resolution. */
export type OwnerLookup = (ownerId: string | null) => { memberId: string; teamId: string } | undefined;

export async function writeDefinitions(snapshotId: string, definitions: NormalisedDefinition[]): Promise<void> {
  if (definitions.length === 0) return;
  await DefinitionModel.insertMany(
    definitions.map((d) => ({ _id: `${snapshotId}:${d.definitionId}`, snapshotId, ...d })),
    { ordered: true },
  );
}

export async function writePipelines(snapshotId: string, rows: PipelineRow[]): Promise<void> {
  if (rows.length === 0) return;
  await PipelineModel.insertMany(
    rows.map((r) => ({ _id: `${snapshotId}:${r.pipelineId}`, snapshotId, ...r })),
    { ordered: true },
  );
}

/**
 * Writes a snapshot's opportunities in batches, unordered (the server may apply a batch in any
 * order; any failure still rejects). `lean` skips mongoose hydration and validation: the documents
 * are built typed here, and at 100k deals per snapshot that work would dominate.
 */
export async function writeOpportunities(
  snapshotId: string,
  states: DealState[],
  owner: OwnerLookup,
  onBatch: (written: number) => void,
): Promise<void> {
  for (let i = 0; i < states.length; i += OPPORTUNITY_BATCH) {
    const batch = states.slice(i, i + OPPORTUNITY_BATCH).map(({ deal, stageId, outcome }) => {
      const o = owner(deal.ownerId);
      return {
        _id: `${snapshotId}:${deal.dealId}`,
        snapshotId,
        dealId: deal.dealId,
        name: deal.name,
        definitionId: deal.definitionId,
        stageId,
        amount: deal.amount,
        memberId: o?.memberId ?? null,
        teamId: o?.teamId ?? null,
        createdAt: deal.createdAt,
        closedAt: deal.closedAt,
        outcome,
      };
    });
    await OpportunityModel.insertMany(batch, { ordered: false, lean: true });
    onBatch(batch.length);
  }
}

/** Removes every document that belongs to the given snapshots (not the snapshot documents themselves). */
export async function deleteSnapshotContents(snapshotIds: string[]): Promise<void> {
  if (snapshotIds.length === 0) return;
  const filter = { snapshotId: trusted({ $in: snapshotIds }) };
  await Promise.all([
    OpportunityModel.deleteMany(filter),
    PipelineModel.deleteMany(filter),
    DefinitionModel.deleteMany(filter),
    PipelineFactsModel.deleteMany(filter),
  ]);
}
