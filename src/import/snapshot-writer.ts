// trusted(): the `$in` operators here are ours, never client input (filters are sanitised globally).
import type { AnyBulkWriteOperation, Collection } from 'mongodb';
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

/** A stored version as the import reads it back: its id and its state. */
export type StoredVersion = StoredOpportunity & { _id: string };

/**
 * The versions `filter` selects, in deal id order, read as a cursor in batches (the driver's
 * own: nothing past a batch is held). Throws should the database give them out of order, since
 * the import merges them with its deals by that order.
 */
export async function* versionsInDealOrder(
  filter: Record<string, unknown>,
): AsyncIterable<StoredVersion> {
  // The driver's collection: these reads are the import's own (no request, no casting), and at a
  // million versions mongoose's per-document work would be most of their cost.
  const cursor = OpportunityModel.collection.find(filter, {
    sort: { dealId: 1 },
    batchSize: OPPORTUNITY_BATCH,
    allowDiskUse: true,
  });
  let previous: string | null = null;
  try {
    for await (const doc of cursor) {
      const version = doc as unknown as StoredVersion;
      if (previous !== null && !(previous < version.dealId))
        throw new Error(
          `opportunity versions came out of deal id order ("${version.dealId}" after "${previous}"); the import needs them sorted as JavaScript compares strings`,
        );
      previous = version.dealId;
      yield version;
    }
  } finally {
    await cursor.close();
  }
}

/** The versions still open (toSeq OPEN_SEQ): the state of the snapshot written last, in deal id order. */
export function openVersions(): AsyncIterable<StoredVersion> {
  return versionsInDealOrder({ toSeq: OPEN_SEQ });
}

/** A version to insert: its state and the snapshots it holds in. */
export type NewVersion = Omit<OpportunityRow, 'stageEntries'> & {
  _id: string;
  fromSeq: number;
  toSeq: number;
};

/**
 * Writes opportunity versions in batches of OPPORTUNITY_BATCH as an import decides them: one
 * unordered bulk write per batch (new versions are inserted with their final toSeq, and the
 * versions they replace closed by id: no write in a batch depends on another), with one batch in
 * flight while the next is prepared. `finish()` waits for the last; a failed batch fails the next
 * call.
 */
export class VersionWriter {
  private inserts: NewVersion[] = [];
  private closes = new Map<number, string[]>();
  private pending = 0;
  private inFlight: Promise<{ error: unknown } | null> | null = null;
  written = 0;
  closed = 0;
  /** Milliseconds spent waiting on the database for a batch (what the database costs the import). */
  waitedMs = 0;

  insert(version: NewVersion): Promise<void> {
    this.inserts.push(version);
    this.written += 1;
    return ++this.pending >= OPPORTUNITY_BATCH ? this.flush() : Promise.resolve();
  }

  close(id: string, seq: number): Promise<void> {
    const ids = this.closes.get(seq);
    if (ids) ids.push(id);
    else this.closes.set(seq, [id]);
    this.closed += 1;
    return ++this.pending >= OPPORTUNITY_BATCH ? this.flush() : Promise.resolve();
  }

  /** Sends what is pending once the batch before it is done. */
  async flush(): Promise<void> {
    await this.settle();
    if (this.pending === 0) return;
    const operations: AnyBulkWriteOperation<NewVersion>[] = this.inserts.map((document) => ({
      insertOne: { document },
    }));
    for (const [seq, ids] of this.closes) {
      operations.push({
        updateMany: { filter: { _id: { $in: ids } }, update: { $set: { toSeq: seq } } },
      });
    }
    this.inserts = [];
    this.closes = new Map();
    this.pending = 0;
    // The driver's collection, as for the reads: the documents are built typed here.
    const versions = OpportunityModel.collection as unknown as Collection<NewVersion>;
    // Held with its handler attached: a batch failing before the next call must not go unhandled.
    this.inFlight = versions.bulkWrite(operations, { ordered: false }).then(
      () => null,
      (error: unknown) => ({ error }),
    );
  }

  /** Waits for every batch sent, the last included. */
  async finish(): Promise<void> {
    await this.flush();
    await this.settle();
  }

  private async settle(): Promise<void> {
    if (!this.inFlight) return;
    const started = performance.now();
    const failed = await this.inFlight;
    this.inFlight = null;
    this.waitedMs += performance.now() - started;
    if (failed) throw failed.error;
  }
}

/** A row as its version document stores it (the CRM's entry times are in its history). */
export function storedFields(row: OpportunityRow): Omit<OpportunityRow, 'stageEntries'> {
  const { stageEntries: _carried, ...stored } = row;
  return stored;
}

/**
 * How a snapshot's deals compare with the snapshot written before it: deals it adds, deals whose
 * state changed, deals that were read and are the same, and deals it no longer holds.
 */
export interface DealComparison {
  added: number;
  changed: number;
  unchanged: number;
  removed: number;
}

/**
 * Sets `row`'s stage and close-date histories, and answers it: those of `before` (the deal's state
 * in the snapshot written before; null when it had none) carried on to a snapshot dated `at`.
 */
export function withHistories(
  row: OpportunityRow,
  before: OpportunityRow | null,
  at: Date,
): OpportunityRow {
  row.stageHistory = stageHistoryAfter(before?.stageHistory, row.stageEntries, row.stageId, at);
  row.closeHistory = closeHistoryAfter(before?.closeHistory, row.closedAt, at);
  return row;
}

/**
 * Makes `rows` the opportunities of the snapshot `seq`, dated `snapshotAt`, the latest written:
 * each row's stage and close-date histories are its open version's carried on to this snapshot
 * (domain/deal-history.ts), set on the row. Compared with the open versions (the state of the
 * snapshot written before), a deal whose state changed gets a new version from `seq` and its
 * previous one is closed at `seq`; a deal that left has its version closed; an unchanged deal
 * keeps its version. The import's own merge (import.service.ts) does the same as its deals
 * stream; this one serves writers of rows held in memory (tests, the migration of per-snapshot
 * copies). Answers how many versions were written and closed.
 */
export async function writeOpportunityVersions(
  seq: number,
  snapshotAt: Date,
  rows: OpportunityRow[],
  onBatch: (compared: number) => void,
): Promise<{ written: number; closed: number }> {
  const writer = new VersionWriter();
  const sorted = [...rows].sort((a, b) => (a.dealId < b.dealId ? -1 : a.dealId > b.dealId ? 1 : 0));
  let i = 0;
  const version = (row: OpportunityRow): NewVersion => ({
    _id: `${row.dealId}@${seq}`,
    fromSeq: seq,
    toSeq: OPEN_SEQ,
    ...storedFields(row),
  });
  const take = async (open: StoredVersion | null, upTo: string | null) => {
    while (i < sorted.length && (upTo === null || sorted[i].dealId < upTo)) {
      const row = sorted[i++];
      withHistories(row, null, snapshotAt);
      await writer.insert(version(row));
    }
    if (!open) return;
    const row = i < sorted.length && sorted[i].dealId === open.dealId ? sorted[i++] : null;
    const before = rowOf(open);
    if (row && sameState(before, withHistories(row, before, snapshotAt))) return;
    await writer.close(open._id, seq);
    if (row) await writer.insert(version(row));
  };
  for await (const open of openVersions()) await take(open, open.dealId);
  await take(null, null);
  await writer.finish();
  onBatch(rows.length);
  return { written: writer.written, closed: writer.closed };
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
