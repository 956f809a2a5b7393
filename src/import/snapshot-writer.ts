// trusted(): the `$in` operators here are ours, never client input (filters are sanitised globally).
import { trusted } from 'mongoose';
import { DealStatesModel } from '../models/deal-states.model';
import { DefinitionModel } from '../models/definition.model';
import {
  heldAt,
  OPEN_SEQ,
  OpportunityModel,
  type OpportunityDoc,
  type Outcome,
} from '../models/opportunity.model';
import { PipelineFactsModel } from '../models/pipeline-facts.model';
import { PipelineModel } from '../models/pipeline.model';
import type { NormalisedDefinition } from './normalised.types';
import type { PipelineRow } from './build-pipelines';
import type { DealState } from './opportunity-state';
import type { ForecastCategory, ForecastCategorySource } from '../domain/forecast-category';
import {
  closeHistoryAfter,
  sameCloseHistory,
  sameStageHistory,
  stageHistoryAfter,
  type CloseChange,
  type StageEntry,
} from '../domain/deal-history';

/** Opportunities per insertMany: big enough to amortise round trips, small enough for one BSON message. */
export const OPPORTUNITY_BATCH = 2000;

/** The member and team an opportunity belongs to, from the owner resolution. */
export type OwnerLookup = (
  ownerId: string | null,
) => { memberId: string; teamId: string } | undefined;

export async function writeDefinitions(
  snapshotId: string,
  definitions: NormalisedDefinition[],
): Promise<void> {
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
  /** The forecast category the CRM gave for this state, or null. */
  crmForecastCategory: ForecastCategory | null;
  /**
   * The deal's forecast category in this snapshot and the rule it came from, set by
   * categoriseRows() before the rows are written; null on versions stored before categories.
   */
  forecastCategory: ForecastCategory | null;
  forecastCategorySource: ForecastCategorySource | null;
  /** Every entry into a stage, up to this snapshot (writeOpportunityVersions sets it). */
  stageHistory: StageEntry[];
  /** Every close date since the deal appeared (writeOpportunityVersions sets it). */
  closeHistory: CloseChange[];
  /** The CRM's stage entry times the import carried (not stored: the history takes them in). */
  stageEntries: readonly StageEntry[];
}

/** The row a deal's state makes, its owner resolved to a member and team. */
export function opportunityRow(
  { deal, stageId, outcome }: DealState,
  owner: OwnerLookup,
): OpportunityRow {
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
    crmForecastCategory: deal.crmForecastCategory ?? null,
    forecastCategory: null,
    forecastCategorySource: null,
    stageHistory: [],
    closeHistory: [],
    stageEntries: deal.stageEntries,
  };
}

/** Whether two rows are the same state: an import keeps the deal's version when nothing differs. */
export function sameState(a: OpportunityRow, b: OpportunityRow): boolean {
  return (
    a.name === b.name &&
    a.definitionId === b.definitionId &&
    a.stageId === b.stageId &&
    a.amount === b.amount &&
    a.memberId === b.memberId &&
    a.teamId === b.teamId &&
    a.createdAt?.getTime() === b.createdAt?.getTime() &&
    a.closedAt?.getTime() === b.closedAt?.getTime() &&
    a.outcome === b.outcome &&
    a.crmForecastCategory === b.crmForecastCategory &&
    a.forecastCategory === b.forecastCategory &&
    a.forecastCategorySource === b.forecastCategorySource &&
    sameStageHistory(a.stageHistory, b.stageHistory) &&
    sameCloseHistory(a.closeHistory, b.closeHistory)
  );
}

/** A deal's state as stored: a version document, or a per-snapshot copy of an older database. */
export type StoredOpportunity = Pick<
  OpportunityRow,
  'dealId' | 'definitionId' | 'stageId' | 'amount' | 'outcome'
> &
  Partial<Record<'name', string | null>> &
  Partial<Record<'memberId' | 'teamId', string | null>> &
  Partial<Record<'createdAt' | 'closedAt', Date | null>> &
  Partial<Record<'crmForecastCategory' | 'forecastCategory', ForecastCategory | null>> &
  Partial<Record<'forecastCategorySource', ForecastCategorySource | null>> & {
    stageHistory?: ReadonlyArray<{ stageId?: string | null; at?: Date | null }> | null;
    closeHistory?: ReadonlyArray<{ at?: Date | null; closedAt?: Date | null }> | null;
  };

/** A stored deal state, as a row. */
export function rowOf(doc: StoredOpportunity): OpportunityRow {
  return {
    dealId: doc.dealId,
    name: doc.name ?? '',
    definitionId: doc.definitionId,
    stageId: doc.stageId,
    amount: doc.amount,
    memberId: doc.memberId ?? null,
    teamId: doc.teamId ?? null,
    createdAt: doc.createdAt ? new Date(doc.createdAt) : null,
    closedAt: doc.closedAt ? new Date(doc.closedAt) : null,
    outcome: doc.outcome,
    crmForecastCategory: doc.crmForecastCategory ?? null,
    forecastCategory: doc.forecastCategory ?? null,
    forecastCategorySource: doc.forecastCategorySource ?? null,
    stageHistory: (doc.stageHistory ?? []).map((e) => ({
      stageId: e.stageId ?? '',
      at: new Date(e.at ?? 0),
    })),
    closeHistory: (doc.closeHistory ?? []).map((e) => ({
      at: new Date(e.at ?? 0),
      closedAt: e.closedAt ? new Date(e.closedAt) : null,
    })),
    stageEntries: [],
  };
}

/** A row as its version document stores it (the CRM's entry times are in its history). */
function storedFields(row: OpportunityRow): Omit<OpportunityRow, 'stageEntries'> {
  const { stageEntries: _carried, ...stored } = row;
  return stored;
}

/**
 * Makes `rows` the opportunities of the snapshot `seq`, dated `snapshotAt`, the latest written:
 * each row's stage and close-date histories are its open version's carried on to this snapshot
 * (domain/deal-history.ts), set on the row. Compared with the open
 * versions (the state of the snapshot written before), a deal whose state changed gets a new
 * version from `seq` and its previous one is closed at `seq`; a deal that left has its version
 * closed; an unchanged deal keeps its version. Snapshots before `seq` read exactly what they read
 * before (their seq is below every new fromSeq and every new toSeq). Inserts are unordered and
 * `lean` (the documents are built typed here; hydration would dominate at 100k deals).
 * Answers how many versions were written and closed.
 */
export async function writeOpportunityVersions(
  seq: number,
  snapshotAt: Date,
  rows: OpportunityRow[],
  onBatch: (compared: number) => void,
): Promise<{ written: number; closed: number }> {
  const open = new Map<string, OpportunityDoc>();
  for (const doc of await OpportunityModel.find({ toSeq: OPEN_SEQ }).lean<OpportunityDoc[]>())
    open.set(doc.dealId, doc);
  const toClose: string[] = [];
  const toWrite: OpportunityRow[] = [];
  for (const row of rows) {
    const current = open.get(row.dealId);
    open.delete(row.dealId);
    const before = current?.stageHistory ? rowOf(current) : null;
    row.stageHistory = stageHistoryAfter(
      before?.stageHistory,
      row.stageEntries,
      row.stageId,
      snapshotAt,
    );
    row.closeHistory = closeHistoryAfter(before?.closeHistory, row.closedAt, snapshotAt);
    if (current && sameState(rowOf(current), row)) continue;
    if (current) toClose.push(current._id);
    toWrite.push(row);
  }
  for (const doc of open.values()) toClose.push(doc._id);
  for (let i = 0; i < toClose.length; i += OPPORTUNITY_BATCH) {
    await OpportunityModel.updateMany(
      { _id: trusted({ $in: toClose.slice(i, i + OPPORTUNITY_BATCH) }) },
      { $set: { toSeq: seq } },
    );
  }
  onBatch(rows.length - toWrite.length);
  for (let i = 0; i < toWrite.length; i += OPPORTUNITY_BATCH) {
    const batch = toWrite.slice(i, i + OPPORTUNITY_BATCH).map((row) => ({
      _id: `${row.dealId}@${seq}`,
      fromSeq: seq,
      toSeq: OPEN_SEQ,
      ...storedFields(row),
    }));
    await OpportunityModel.insertMany(batch, { ordered: false, lean: true });
    onBatch(batch.length);
  }
  return { written: toWrite.length, closed: toClose.length };
}

/** The opportunities the snapshot `seq` holds, as rows sorted by deal id. */
export async function opportunitiesAt(seq: number): Promise<OpportunityRow[]> {
  const docs = await OpportunityModel.find(heldAt(seq)).lean<OpportunityDoc[]>();
  return docs.map(rowOf).sort((a, b) => (a.dealId < b.dealId ? -1 : a.dealId > b.dealId ? 1 : 0));
}

/**
 * Undoes the opportunity versions of snapshots not committed (`seqs`, the latest written): the
 * versions they started are deleted, then the versions they closed are open again. Safe to repeat,
 * and a clean-up cut short between the two steps is finished by the next one.
 */
export async function undoOpportunityVersions(seqs: number[]): Promise<void> {
  if (seqs.length === 0) return;
  await OpportunityModel.deleteMany({ fromSeq: trusted({ $in: seqs }) });
  await OpportunityModel.updateMany(
    { toSeq: trusted({ $in: seqs }) },
    { $set: { toSeq: OPEN_SEQ } },
  );
}

/**
 * Removes every document that belongs to the given snapshots, not yet committed (not the snapshot
 * documents themselves): their opportunity versions are undone (undoOpportunityVersions).
 */
export async function deleteSnapshotContents(
  snapshots: { id: string; seq: number | null }[],
): Promise<void> {
  if (snapshots.length === 0) return;
  const filter = { snapshotId: trusted({ $in: snapshots.map((s) => s.id) }) };
  await undoOpportunityVersions(
    snapshots.flatMap((s) => (typeof s.seq === 'number' ? [s.seq] : [])),
  );
  await Promise.all([
    PipelineModel.deleteMany(filter),
    DefinitionModel.deleteMany(filter),
    PipelineFactsModel.deleteMany(filter),
    DealStatesModel.deleteMany(filter),
  ]);
}
