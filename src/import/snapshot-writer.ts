// trusted(): the `$in` operators here are ours, never client input (filters are sanitised globally).
import { trusted } from 'mongoose';
import { DefinitionModel } from '../models/definition.model';
import { OpportunityModel, type Outcome } from '../models/opportunity.model';
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

/** An opportunity as a snapshot stores it, owner resolved: what every read of the snapshot sees. */
export interface OpportunityRow {
  dealId: string;
  name: string;
  definitionId: string;
  stageId: string;
  amount: number;
  memberId: string | null;
  teamId: string | null;
  createdAt: Date | null;
  closedAt: Date | null;
  outcome: Outcome;
}

/** The row a deal's state makes, its owner resolved to a member and team. */
export function opportunityRow({ deal, stageId, outcome }: DealState, owner: OwnerLookup): OpportunityRow {
  const o = owner(deal.ownerId);
  return {
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
}

/**
 * Writes a snapshot's opportunities in batches, unordered (the server may apply a batch in any
 * order; any failure still rejects). `lean` skips mongoose hydration and validation: the documents
 * are built typed here, and at 100k deals per snapshot that work would dominate.
 */
export async function writeOpportunities(snapshotId: string, rows: OpportunityRow[], onBatch: (written: number) => void): Promise<void> {
  for (let i = 0; i < rows.length; i += OPPORTUNITY_BATCH) {
    const batch = rows.slice(i, i + OPPORTUNITY_BATCH).map((row) => ({ _id: `${snapshotId}:${row.dealId}`, snapshotId, ...row }));
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
