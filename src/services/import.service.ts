import { randomUUID } from 'node:crypto';
import type { Principal } from '../auth/principal';
import type { PeriodUnit } from '../domain/period';
import { backfillPeriodEnds } from '../import/backfill-periods';
import { buildPipelines } from '../import/build-pipelines';
import { discardImport, discardPendingImports } from '../import/discard-import';
import {
  acquireImportLease,
  importRunningError,
  releaseImportLease,
  renewImportLease,
} from '../import/import-lease';
import { normaliseCrmData } from '../import/normalise';
import { publishImport } from '../import/publish-import';
import type { CurrencySkips, NormalisedCrmData } from '../import/normalised.types';
import { holdsOnlyDemo, removeDemo, settingsAfterDemo } from '../import/replace-demo';
import { currentState, stateAt } from '../import/opportunity-state';
import { CreatedEntities, resolveOwners } from '../import/resolve-owners';
import type { SkippedItem } from '../import/skipped';
import {
  opportunityRow,
  type OpportunityRow,
  writeDefinitions,
  writeOpportunityVersions,
  writePipelines,
} from '../import/snapshot-writer';
import { sourceHashOf } from '../import/source-hash';
import { type ImportMode, RawCrmImport, validateCrmDocuments } from '../import/validate-documents';
import { SnapshotModel, type SnapshotDoc } from '../models/snapshot.model';
import { ConflictError, ErrorWithCode, NotFoundError } from '../errors';
import { PrunedSnapshotModel, type PrunedSnapshotDoc } from '../models/pruned-snapshot.model';
import {
  baseDealIds,
  baseDefinitions,
  baseOpportunities,
  latestCommittedSnapshot,
  nextSeq,
} from '../import/import-base';
import {
  checkKeptDeals,
  checkPipelinesLeft,
  checkRemovedDeals,
  checkSnapshotAt,
  checkUsableDeals,
} from '../import/import-guard';
import { incrementalRows, type IncrementalRows, mergeByDealId } from '../import/incremental-rows';
import { linkedOwners } from '../import/linked-owners';
import { ImportQueue, type ImportReport } from '../import/import-queue';
import { pruneSnapshots, removalMessage, removeSnapshotAsAdmin } from '../import/prune-snapshots';
import { DEFAULT_SNAPSHOT_RETENTION_DAYS } from '../domain/snapshot-retention';
import { buildPipelineFacts } from './metrics/build-pipeline-facts';
import { buildDealStates } from '../import/build-deal-states';
import { requireAdmin } from './member-access';
import { readAccountSettings } from './settings.service';
import { snapshotCommitted } from '../events/change-events';
import { pushEvents } from '../events/outbox/outbox-entry';
import { readForecastCategoryMappings } from './forecasts/forecast-settings.service';
import { categoriseRows } from '../import/forecast-categories';
import type { StageCategoryMapping } from '../domain/forecast-category';

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
  mode: ImportMode;
  /** Incremental imports: deals carried (added or changed) and deals of the latest snapshot that left. Full: zeros. */
  changes: ImportChanges;
  /** True when this import replaced the demo company (docs/importing.md, "Your data replaces the demo"). */
  demoRemoved: boolean;
  /** Deals skipped only for their currency, by currency, most first: what a currency change would bring in. */
  skippedForCurrency: CurrencySkips[];
}

export interface ImportChanges {
  updated: number;
  removed: number;
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
  /** The demo company's import: its snapshots are generated data, which the guard does not protect. */
  demo?: boolean;
  /**
   * SNAPSHOT_RETENTION_DAYS: once the import has committed, the snapshots this policy does not
   * keep are removed (src/import/prune-snapshots.ts). Defaults to DEFAULT_SNAPSHOT_RETENTION_DAYS.
   */
  retentionDays?: number;
}

/**
 * Who imports: a request's context, or the CLI, the demo seed and the sync, which act as the
 * system with an admin's rights and have no request.
 */
export interface ImportCaller {
  principal: Principal;
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
 * start-up), never undoing snapshots readers may have seen. One import at a time per database,
 * whichever instance runs it: the import lease (src/import/import-lease.ts), 409 while another
 * import holds it.
 */
export async function importCrmData(
  ctx: ImportCaller,
  raw: RawCrmImport,
  options: ImportOptions = {},
): Promise<CrmImportResult> {
  requireAdmin(ctx.principal, 'import CRM data');
  const validated = validateCrmDocuments(raw);
  const queue = options.queue ?? new ImportQueue();
  // Refused rather than queued behind it, as on another instance: waiting could outlast the
  // request's time budget, and the caller would not know whether this import then ran.
  const busySince = queue.busySince();
  if (busySince) throw importRunningError(busySince);
  return queue.exclusive(async () => {
    const started = performance.now();
    const ended = (outcome: ImportReport['outcome']) =>
      queue.importEnded({
        mode: validated.mode,
        outcome,
        seconds: (performance.now() - started) / 1000,
      });
    const holder = randomUUID();
    try {
      await acquireImportLease(holder);
      try {
        // Under the lease no other import runs: a pending snapshot is what an import that stopped left.
        await queue.settleLeftovers();
        await discardPendingImports();
        const result = await importExclusively(validated, options, queue, () =>
          renewImportLease(holder),
        );
        ended(result.reused ? 'reused' : 'committed');
        return result;
      } finally {
        // Should this fail (the database went away), the lease expires by itself.
        await releaseImportLease(holder).catch(() => undefined);
      }
    } catch (error) {
      ended(error instanceof ErrorWithCode && error.status < 500 ? 'refused' : 'failed');
      throw error;
    }
  });
}

/** The import itself, holding the instance's queue and the database's import lease. */
async function importExclusively(
  validated: ReturnType<typeof validateCrmDocuments>,
  options: ImportOptions,
  queue: ImportQueue,
  renewLease: () => Promise<void>,
): Promise<CrmImportResult> {
  const incremental = validated.mode === 'incremental';
  // The first import of the user's own data onto the demo company replaces it: the import is
  // decided as onto an empty database, and the demo removed once nothing refuses it.
  const replacingDemo = options.demo !== true && (await holdsOnlyDemo());
  const storedSettings = await readAccountSettings();
  const settings = replacingDemo ? settingsAfterDemo(storedSettings) : storedSettings;
  const latest = replacingDemo ? null : await latestCommittedSnapshot();
  const base = incremental
    ? await incrementalBase(latest, validated.snapshotAt, validated.force)
    : null;
  // Amounts are counted in the configured currency (docs/importing.md, "Currencies").
  const { currency } = settings;
  const data = normaliseCrmData(validated.documents, {
    currencies: { configured: currency, home: validated.homeCurrency },
    incremental,
    baseDefinitions:
      base && !validated.documents.pipelines
        ? await baseDefinitions(base._id as string)
        : undefined,
  });
  // Backfill follows the configured period unit, quarterly when none is set.
  const unit = validated.backfill ? (settings.period ?? 'quarterly') : null;
  // The stage mappings in force now decide the categories this import stores (docs/forecasts.md);
  // the demo's mappings name the demo's pipelines and go with it.
  const forecastMappings = replacingDemo ? [] : await readForecastCategoryMappings();
  const sourceHash = sourceHashOf(
    data,
    validated.snapshotAt,
    unit,
    base ? (base._id as string) : null,
    forecastMappings,
  );
  const existing = await findImported(sourceHash);
  if (existing) return existing;
  const importedAt = options.now ?? new Date();
  const rows = base
    ? incrementalRows(await baseOpportunities(base), data, !validated.documents.pipelines)
    : null;
  if (!validated.force) {
    checkSnapshotAt(validated.snapshotAt, importedAt);
    checkUsableDeals(validated.documents, data, validated.mode);
    if (latest && !latest.demo) {
      checkPipelinesLeft(data, latest.counts.pipelines);
      if (rows) checkRemovedDeals(rows.removed, rows.base);
      else if (!incremental) checkKeptDeals(data, await baseDealIds(latest));
    }
  }
  if (replacingDemo) await removeDemo(storedSettings);
  const importId = randomUUID();
  const onProgress = options.onProgress ?? (() => undefined);
  let result: CrmImportResult;
  try {
    result = await writeImport(data, {
      demoRemoved: replacingDemo,
      importId,
      importedAt,
      snapshotAt: validated.snapshotAt ?? importedAt,
      backfillUnit: unit,
      forecastMappings,
      sourceHash,
      incremental,
      demo: options.demo === true,
      base: rows,
      onProgress,
      renewLease,
    });
    // The commit point: from here on readers see the snapshots.
    onProgress({ step: 'committing', done: 0, total: 1 });
    // The same update carries the commit's events, published once the import is settled.
    await SnapshotModel.updateMany(
      { importId },
      { $set: { status: 'committed' }, ...pushEvents(snapshotCommitted()) },
    );
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
  // Still under the lease: no other import writes snapshots while the old ones go. A removal cut
  // short is finished by the next import's.
  await pruneSnapshots({
    retentionDays: options.retentionDays ?? DEFAULT_SNAPSHOT_RETENTION_DAYS,
    now: importedAt,
  });
  onProgress({ step: 'committing', done: 1, total: 1 });
  return result;
}

/** What removing a snapshot did. */
export interface RemovedSnapshot {
  snapshotId: string;
  snapshotAt: Date;
  /** The latest committed snapshot once it is gone: what reads naming no snapshot see; null when none is left. */
  latest: { snapshotId: string; snapshotAt: Date } | null;
}

/**
 * Removes a committed snapshot (DEL /pipelines/snapshots/{id}, the removeSnapshot mutation), so a
 * bad import can be undone: the way retention removes one (src/import/prune-snapshots.ts), its
 * record kept so that a read naming it answers 404 saying an admin removed it. Reads naming no
 * snapshot then see the latest one left by `snapshotAt`. Members, teams and owner links the
 * import created stay, as they do when retention removes its snapshot. Admin only (403); unknown
 * or already removed: 404; still being imported (pending), or another import running: 409.
 * Runs under the import lease, like an import, since it rewrites what the next import builds on.
 */
export async function removeSnapshot(
  ctx: ImportCaller,
  snapshotId: string,
  options: { queue?: ImportQueue; now?: Date } = {},
): Promise<RemovedSnapshot> {
  requireAdmin(ctx.principal, 'remove a snapshot');
  await removableSnapshot(snapshotId);
  const queue = options.queue ?? new ImportQueue();
  return queue.exclusive(async () => {
    const holder = randomUUID();
    await acquireImportLease(holder);
    try {
      // As for an import: under the lease, a pending snapshot is what an import that stopped left.
      await queue.settleLeftovers();
      await discardPendingImports();
      const snapshot = await removableSnapshot(snapshotId);
      await removeSnapshotAsAdmin(snapshot, { now: options.now });
      const latest = await latestCommittedSnapshot();
      return {
        snapshotId,
        snapshotAt: snapshot.snapshotAt,
        latest: latest ? { snapshotId: latest._id, snapshotAt: latest.snapshotAt } : null,
      };
    } finally {
      await releaseImportLease(holder).catch(() => undefined);
    }
  });
}

/** The committed snapshot `snapshotId`; 404 when there is none (saying why when it was removed), 409 while it is pending. */
async function removableSnapshot(
  snapshotId: string,
): Promise<{ _id: string; seq: number; snapshotAt: Date }> {
  const snapshot = await SnapshotModel.findById(snapshotId, {
    seq: 1,
    snapshotAt: 1,
    status: 1,
  }).lean<SnapshotDoc>();
  if (snapshot?.status === 'committed')
    return { _id: snapshot._id, seq: snapshot.seq, snapshotAt: snapshot.snapshotAt };
  if (snapshot) {
    throw new ConflictError(
      `Snapshot ${snapshotId} is being imported: it can be removed once its import has committed`,
    );
  }
  const removed = await PrunedSnapshotModel.findById(snapshotId).lean<PrunedSnapshotDoc>();
  throw new NotFoundError(removed ? removalMessage(removed) : `Snapshot ${snapshotId} not found`);
}

/**
 * The snapshot an incremental import applies its changes to: the latest committed one. None yet:
 * 409, since the deals carried are not the whole picture, unless `force` takes them as such.
 * An incremental import cannot represent a moment before the snapshot it builds on.
 */
async function incrementalBase(
  latest: SnapshotDoc | null,
  snapshotAt: Date | null,
  force: boolean,
): Promise<SnapshotDoc | null> {
  if (!latest) {
    if (force) return null;
    throw new ConflictError(
      'No snapshot to apply an incremental import to: run a full import first, or send "force": true (CLI --force) to take the deals carried as the whole picture',
    );
  }
  if (snapshotAt && snapshotAt.getTime() < latest.snapshotAt.getTime()) {
    throw new ConflictError(
      `An incremental import applies changes to the latest snapshot (${latest.snapshotAt.toISOString()}); its snapshot_at ${snapshotAt.toISOString()} is earlier`,
    );
  }
  return latest;
}

async function findImported(sourceHash: string): Promise<CrmImportResult | null> {
  const primary = await SnapshotModel.findOne({
    sourceHash,
    status: 'committed',
    backfilled: false,
  }).lean();
  if (!primary) return null;
  const all = await SnapshotModel.find({ importId: primary.importId }, { _id: 1 })
    .sort({ snapshotAt: 1 })
    .lean();
  return {
    snapshotId: primary._id as string,
    snapshotAt: primary.snapshotAt,
    snapshotIds: all.map((s) => s._id as string),
    counts: primary.counts,
    skipped: primary.skipped.map(({ id, reason }) => ({ id, reason })),
    reused: true,
    mode: primary.mode === 'incremental' ? 'incremental' : 'full',
    changes: { updated: primary.changes?.updated ?? 0, removed: primary.changes?.removed ?? 0 },
    demoRemoved: false,
    skippedForCurrency: [],
  };
}

interface WriteContext {
  /** The demo company was removed before this import (replace-demo.ts). */
  demoRemoved: boolean;
  importId: string;
  importedAt: Date;
  snapshotAt: Date;
  /** The period unit to backfill with; null: no backfill. */
  backfillUnit: PeriodUnit | null;
  /** The stage → forecast category mappings in force: they decide the categories stored. */
  forecastMappings: StageCategoryMapping[];
  sourceHash: string;
  incremental: boolean;
  demo: boolean;
  /** Incremental: what becomes of the latest snapshot's deals (null on an empty database, and for full imports). */
  base: IncrementalRows | null;
  onProgress: (progress: ImportProgress) => void;
  /** Extends the database's import lease; called after each snapshot written. */
  renewLease: () => Promise<void>;
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
  const mode: ImportMode = ctx.incremental ? 'incremental' : 'full';
  const changes: ImportChanges = { updated: 0, removed: 0 };
  // Backfilled snapshots get the lower seqs, oldest first, the current one the highest: each
  // snapshot's opportunity versions are written as changes from the one written before it.
  const periodEnds = ctx.backfillUnit
    ? backfillPeriodEnds(ctx.backfillUnit, earliestCreation(data), ctx.snapshotAt)
    : [];
  const firstSeq = await nextSeq();
  const snapshotDoc = (id: string, seq: number, snapshotAt: Date, backfilled: boolean) => ({
    mode,
    _id: id,
    seq,
    snapshotAt,
    importedAt: ctx.importedAt,
    status: 'pending' as const,
    importId: ctx.importId,
    sourceHash: ctx.sourceHash,
    backfilled,
    demo: ctx.demo,
    counts,
    skipped: backfilled ? [] : data.skipped.slice(0, MAX_STORED_SKIPPED),
  });

  // The primary snapshot is written first: it records what gets created, so a failure can undo it.
  const primaryId = randomUUID();
  await SnapshotModel.create(
    snapshotDoc(primaryId, firstSeq + periodEnds.length, ctx.snapshotAt, false),
  );
  const record = async (created: Partial<CreatedEntities>) => {
    const push = Object.fromEntries(
      Object.entries(created).map(([k, ids]) => [`created.${k}`, { $each: ids }]),
    );
    await SnapshotModel.updateOne({ _id: primaryId }, { $push: push });
  };
  ctx.onProgress({ step: 'owners', done: 0, total: 1 });
  const owners = await resolveOwners(data.owners, ctx.importId, record);
  counts.teams = owners.teamCount;
  counts.membersCreated = owners.membersCreated;
  await SnapshotModel.updateOne({ _id: primaryId }, { $set: { counts } });
  ctx.onProgress({ step: 'owners', done: 1, total: 1 });

  const backfilled = periodEnds.map(({ at }, i) => ({ id: randomUUID(), seq: firstSeq + i, at }));
  if (backfilled.length > 0)
    await SnapshotModel.insertMany(backfilled.map((s) => snapshotDoc(s.id, s.seq, s.at, true)));

  const definitions = new Map(data.definitions.map((d) => [d.definitionId, d]));
  const linked = ctx.base ? await linkedOwners(data.deals, owners.byOwner) : new Map();
  const ownerOf = (ownerId: string | null) =>
    ownerId === null ? undefined : (owners.byOwner.get(ownerId) ?? linked.get(ownerId));
  const skipped = [...data.skipped];
  for (const deal of data.deals) {
    if (deal.ownerId !== null && ownerOf(deal.ownerId) === undefined) {
      skipped.push({
        id: deal.dealId,
        reason: `deal has hubspot_owner_id "${deal.ownerId}", which is neither among the owners nor linked to a member: no member; the deal is kept`,
      });
    }
  }
  const rowsAt = async (snapshot: { at: Date; current: boolean }): Promise<OpportunityRow[]> => {
    if (!snapshot.current) {
      const rows: OpportunityRow[] = [];
      for (const deal of data.deals) {
        const state = stateAt(deal, definitions.get(deal.definitionId)!, snapshot.at);
        // The CRM gives only the current category: a reconstructed state has none of its own.
        if (state) rows.push({ ...opportunityRow(state, ownerOf), crmForecastCategory: null });
      }
      return rows;
    }
    const carried = data.deals.map((deal) => opportunityRow(currentState(deal), ownerOf));
    if (!ctx.base) return carried;
    skipped.push(...ctx.base.left);
    changes.updated = carried.length;
    changes.removed = ctx.base.removed;
    return mergeByDealId(ctx.base.kept, carried);
  };
  const plan = [
    ...backfilled.map((s) => ({ ...s, current: false })),
    { id: primaryId, seq: firstSeq + periodEnds.length, at: ctx.snapshotAt, current: true },
  ];
  const total = plan.length * data.deals.length;
  let done = 0;
  ctx.onProgress({ step: 'snapshots', done, total });
  for (const snapshot of plan) {
    const rows = await rowsAt(snapshot);
    categoriseRows(rows, data.definitions, ctx.forecastMappings);
    if (snapshot.current && ctx.incremental) {
      counts.deals = rows.length;
      await SnapshotModel.updateOne(
        { _id: primaryId },
        { $set: { counts, changes, skipped: skipped.slice(0, MAX_STORED_SKIPPED) } },
      );
    }
    await writeDefinitions(snapshot.id, data.definitions);
    await writeOpportunityVersions(snapshot.seq, snapshot.at, rows, (n) => {
      done += n;
      ctx.onProgress({ step: 'snapshots', done: Math.min(done, total), total });
    });
    done = Math.max(done, (plan.indexOf(snapshot) + 1) * data.deals.length);
    await writePipelines(snapshot.id, buildPipelines(data.definitions, rows));
    await buildPipelineFacts(snapshot.id, rows);
    await buildDealStates(snapshot.id, rows);
    await ctx.renewLease();
    ctx.onProgress({ step: 'snapshots', done: Math.min(done, total), total });
  }
  return {
    snapshotId: primaryId,
    snapshotAt: ctx.snapshotAt,
    snapshotIds: plan.map((s) => s.id),
    counts,
    skipped,
    reused: false,
    mode,
    changes,
    demoRemoved: ctx.demoRemoved,
    skippedForCurrency: data.skippedForCurrency,
  };
}

function earliestCreation(data: NormalisedCrmData): Date | null {
  let earliest: number | null = null;
  for (const deal of data.deals) {
    const t = deal.createdAt?.getTime();
    if (t !== undefined && (earliest === null || t < earliest)) earliest = t;
  }
  return earliest === null ? null : new Date(earliest);
}
