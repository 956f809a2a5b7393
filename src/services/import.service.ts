import { randomUUID } from 'node:crypto';
import type { Principal } from '../auth/principal';
import type { PeriodUnit } from '../domain/period';
import { backfillPeriodEnds } from '../import/backfill-periods';
import { buildPipelines } from '../import/build-pipelines';
import { discardImport } from '../import/discard-import';
import { normaliseCrmData } from '../import/normalise';
import { publishImport } from '../import/publish-import';
import type { NormalisedCrmData } from '../import/normalised.types';
import { currentState, DealState, stateAt } from '../import/opportunity-state';
import { CreatedEntities, resolveOwners } from '../import/resolve-owners';
import type { SkippedItem } from '../import/skipped';
import { writeDefinitions, writeOpportunities, writePipelines } from '../import/snapshot-writer';
import { sourceHashOf } from '../import/source-hash';
import { RawCrmImport, validateCrmDocuments } from '../import/validate-documents';
import { SnapshotModel } from '../models/snapshot.model';
import { ImportQueue } from '../import/import-queue';
import { buildPipelineFacts } from './metrics/build-pipeline-facts';
import { requireAdmin } from './member-access';
import { readAccountSettings } from './settings.service';

export type { RawCrmImport } from '../import/validate-documents';
export type { SkippedItem } from '../import/skipped';

/** What an import counted. `deals` are the deals that count; `owners` those linked to a member. */
export interface CrmImportCounts {
  /** Pipeline definitions imported (archived ones excluded). */
  pipelines: number;
  /** Stages of those definitions. */
  stages: number;
  /** Deals stored as opportunities; the others are in `skipped`. */
  deals: number;
  /** Owners mapped to a member (archived and e-mail-less owners excluded). */
  owners: number;
  /** Distinct teams of those owners, the `unassigned` team included when used. */
  teams: number;
  membersCreated: number;
}

export interface CrmImportResult {
  /** The current (latest) snapshot of the import. */
  snapshotId: string;
  snapshotAt: Date;
  /** Every snapshot the import wrote, oldest first (several with backfill). */
  snapshotIds: string[];
  counts: CrmImportCounts;
  skipped: SkippedItem[];
  /** True when the same data had been imported before: nothing was written, its snapshot is answered. */
  reused: boolean;
}

export interface ImportProgress {
  step: 'owners' | 'snapshots' | 'committing';
  /** Units done and expected: deals × snapshots during `snapshots`, else 0/1 → 1/1. */
  done: number;
  total: number;
}

export interface ImportOptions {
  /** Called as the import advances (the CLI draws its progress bar from it). */
  onProgress?: (progress: ImportProgress) => void;
  /** The import time; defaults to now. Tests pin it. */
  now?: Date;
  /** The instance's import queue (DataAccess.imports); a caller importing alone may leave it out. */
  queue?: ImportQueue;
}

/** A snapshot keeps at most this many skipped items; the answer of the import itself has them all. */
export const MAX_STORED_SKIPPED = 10_000;


/**
 * Imports HubSpot CRM data (POST /crm/imports, the importCrmData mutation, the CLI, the demo seed).
 * Admin only (403). Structural problems: 400 naming the paths, nothing written. Data problems are
 * decided and reported in `skipped`. Idempotent by source hash.
 *
 * All-or-nothing without transactions: snapshots are written `pending`, and the members and teams
 * the import creates carry its id (`pendingImportId`), which hides them from every caller. The
 * commit point is flipping the snapshots to `committed`; the members and teams are published
 * right after. A failure before the commit point removes what the import wrote or created
 * before the error is rethrown; a failure after it finishes publishing later (next import, or
 * start-up), never undoing snapshots readers may have seen.
 */
export async function importCrmData(principal: Principal, raw: RawCrmImport, options: ImportOptions = {}): Promise<CrmImportResult> {
  requireAdmin(principal, 'import CRM data');
  const validated = validateCrmDocuments(raw);
  // Amounts are counted in the configured currency (docs/importing.md, "Currencies").
  const { currency } = await readAccountSettings();
  const data = normaliseCrmData(validated.documents, { configured: currency, home: validated.homeCurrency });
  const queue = options.queue ?? new ImportQueue();
  return queue.exclusive(async () => {
    await queue.settleLeftovers();
    const unit = validated.backfill ? await backfillUnit() : null;
    const sourceHash = sourceHashOf(data, validated.snapshotAt, unit);
    const existing = await findImported(sourceHash);
    if (existing) return existing;
    const importedAt = options.now ?? new Date();
    const importId = randomUUID();
    const onProgress = options.onProgress ?? (() => undefined);
    let result: CrmImportResult;
    try {
      result = await writeImport(data, {
        importId,
        importedAt,
        snapshotAt: validated.snapshotAt ?? importedAt,
        backfillUnit: unit,
        sourceHash,
        onProgress,
      });
      // The commit point: from here on readers see the snapshots.
      onProgress({ step: 'committing', done: 0, total: 1 });
      await SnapshotModel.updateMany({ importId }, { $set: { status: 'committed' } });
    } catch (error) {
      // The import's own error is what the caller needs; should the clean-up fail too, everything
      // is still hidden, and the next import or start-up removes it.
      await discardImport(importId).catch(() => queue.leaveUnsettled(importId));
      throw error;
    }
    try {
      await publishImport(importId);
    } catch (error) {
      queue.leaveUnsettled(importId);
      throw error;
    }
    onProgress({ step: 'committing', done: 1, total: 1 });
    return result;
  });
}

async function findImported(sourceHash: string): Promise<CrmImportResult | null> {
  const primary = await SnapshotModel.findOne({ sourceHash, status: 'committed', backfilled: false }).lean();
  if (!primary) return null;
  const all = await SnapshotModel.find({ importId: primary.importId }, { _id: 1 }).sort({ snapshotAt: 1 }).lean();
  return {
    snapshotId: primary._id as string,
    snapshotAt: primary.snapshotAt,
    snapshotIds: all.map((s) => s._id as string),
    counts: primary.counts,
    skipped: primary.skipped.map(({ id, reason }) => ({ id, reason })),
    reused: true,
  };
}

interface WriteContext {
  importId: string;
  importedAt: Date;
  snapshotAt: Date;
  /** The period unit to backfill with; null: no backfill. */
  backfillUnit: PeriodUnit | null;
  sourceHash: string;
  onProgress: (progress: ImportProgress) => void;
}

/** Writes everything an import makes, hidden: snapshots `pending`, members and teams marked. */
async function writeImport(data: NormalisedCrmData, ctx: WriteContext): Promise<CrmImportResult> {
  const counts: CrmImportCounts = {
    pipelines: data.definitions.length,
    stages: data.definitions.reduce((n, d) => n + d.stages.length, 0),
    deals: data.deals.length,
    owners: data.owners.length,
    teams: 0,
    membersCreated: 0,
  };
  const snapshotDoc = (id: string, snapshotAt: Date, backfilled: boolean) => ({
    _id: id,
    snapshotAt,
    importedAt: ctx.importedAt,
    status: 'pending' as const,
    importId: ctx.importId,
    sourceHash: ctx.sourceHash,
    backfilled,
    counts,
    skipped: backfilled ? [] : data.skipped.slice(0, MAX_STORED_SKIPPED),
  });

  // The primary snapshot is written first: it records what gets created, so a failure can undo it.
  const primaryId = randomUUID();
  await SnapshotModel.create(snapshotDoc(primaryId, ctx.snapshotAt, false));
  const record = async (created: Partial<CreatedEntities>) => {
    const push = Object.fromEntries(Object.entries(created).map(([k, ids]) => [`created.${k}`, { $each: ids }]));
    await SnapshotModel.updateOne({ _id: primaryId }, { $push: push });
  };
  ctx.onProgress({ step: 'owners', done: 0, total: 1 });
  const owners = await resolveOwners(data.owners, ctx.importId, record);
  counts.teams = owners.teamCount;
  counts.membersCreated = owners.membersCreated;
  await SnapshotModel.updateOne({ _id: primaryId }, { $set: { counts } });
  ctx.onProgress({ step: 'owners', done: 1, total: 1 });

  const periodEnds = ctx.backfillUnit ? backfillPeriodEnds(ctx.backfillUnit, earliestCreation(data), ctx.snapshotAt) : [];
  const backfilled = periodEnds.map(({ at }) => ({ id: randomUUID(), at }));
  if (backfilled.length > 0) await SnapshotModel.insertMany(backfilled.map((s) => snapshotDoc(s.id, s.at, true)));

  const definitions = new Map(data.definitions.map((d) => [d.definitionId, d]));
  const plan = [...backfilled.map((s) => ({ ...s, current: false })), { id: primaryId, at: ctx.snapshotAt, current: true }];
  const total = plan.length * data.deals.length;
  let done = 0;
  ctx.onProgress({ step: 'snapshots', done, total });
  for (const snapshot of plan) {
    const states: DealState[] = [];
    for (const deal of data.deals) {
      const state = snapshot.current ? currentState(deal) : stateAt(deal, definitions.get(deal.definitionId)!, snapshot.at);
      if (state) states.push(state);
    }
    const ownerOf = (ownerId: string | null) => (ownerId === null ? undefined : owners.byOwner.get(ownerId));
    await writeDefinitions(snapshot.id, data.definitions);
    const absent = data.deals.length - states.length;
    await writeOpportunities(snapshot.id, states, ownerOf, (n) => {
      done += n;
      ctx.onProgress({ step: 'snapshots', done, total });
    });
    done += absent;
    const rows = buildPipelines(
      data.definitions,
      states.map((s) => {
        const o = ownerOf(s.deal.ownerId);
        return { definitionId: s.deal.definitionId, memberId: o?.memberId ?? null, teamId: o?.teamId ?? null };
      }),
    );
    await writePipelines(snapshot.id, rows);
    await buildPipelineFacts(snapshot.id);
    ctx.onProgress({ step: 'snapshots', done, total });
  }
  return {
    snapshotId: primaryId,
    snapshotAt: ctx.snapshotAt,
    snapshotIds: plan.map((s) => s.id),
    counts,
    skipped: data.skipped,
    reused: false,
  };
}

/** Backfill follows the configured period unit, quarterly when none is set. */
async function backfillUnit(): Promise<PeriodUnit> {
  return (await readAccountSettings()).period ?? 'quarterly';
}

function earliestCreation(data: NormalisedCrmData): Date | null {
  let earliest: number | null = null;
  for (const deal of data.deals) {
    const t = deal.createdAt?.getTime();
    if (t !== undefined && (earliest === null || t < earliest)) earliest = t;
  }
  return earliest === null ? null : new Date(earliest);
}
