import { randomUUID } from 'node:crypto';
import type { Principal } from '../auth/principal';
import type { PeriodUnit } from '../domain/period';
import { backfillPeriodEnds } from '../import/backfill-periods';
import { discardImport, discardPendingImports } from '../import/discard-import';
import type { HubSpotDeal } from '../import/hubspot.types';
import {
  acquireImportLease,
  importRunningError,
  releaseImportLease,
  renewImportLease,
} from '../import/import-lease';
import { CurrencySkipCounter, type DealNormaliser, prepareNormaliser } from '../import/normalise';
import { publishImport } from '../import/publish-import';
import type {
  CurrencySkips,
  NormalisedDeal,
  NormalisedDefinition,
} from '../import/normalised.types';
import { holdsOnlyDemo, removeDemo, settingsAfterDemo } from '../import/replace-demo';
import { currentState, stateAt } from '../import/opportunity-state';
import { CreatedEntities, resolveOwners } from '../import/resolve-owners';
import type { SkippedItem } from '../import/skipped';
import { type PlannedSnapshot, SnapshotBuild } from '../import/snapshot-build';
import {
  type DealComparison,
  type NewVersion,
  opportunityRow,
  type OpportunityRow,
  openVersions,
  rowOf,
  sameState,
  storedFields,
  VersionWriter,
  versionsInDealOrder,
  withHistories,
  writeDefinitions,
} from '../import/snapshot-writer';
import { type PlacedNote, SortedDeals } from '../import/sorted-deals';
import { SourceHasher } from '../import/source-hash';
import {
  dealStreamValidator,
  type ImportMode,
  RawCrmImport,
  type ValidatedCrmImport,
  validateCrmDocuments,
} from '../import/validate-documents';
import { SnapshotModel, type SnapshotDoc } from '../models/snapshot.model';
import { heldAt, OPEN_SEQ } from '../models/opportunity.model';
import { ConflictError, ErrorWithCode, NotFoundError } from '../errors';
import { PrunedSnapshotModel, type PrunedSnapshotDoc } from '../models/pruned-snapshot.model';
import { baseDefinitions, latestCommittedSnapshot, nextSeq } from '../import/import-base';
import {
  checkKeptDeals,
  checkPipelinesLeft,
  checkRemovedDeals,
  checkSnapshotAt,
  checkUsableDeals,
  type DealsSeen,
  REQUIRED_PROPERTIES,
} from '../import/import-guard';
import { linkedOwners } from '../import/linked-owners';
import { ImportQueue, type ImportReport } from '../import/import-queue';
import { pruneSnapshots, removalMessage, removeSnapshotAsAdmin } from '../import/prune-snapshots';
import { DEFAULT_SNAPSHOT_RETENTION_DAYS } from '../domain/snapshot-retention';
import { requireAdmin } from './member-access';
import { readAccountSettings } from './settings.service';
import { snapshotCommitted } from '../events/change-events';
import { pushEvents } from '../events/outbox/outbox-entry';
import { readForecastCategoryMappings } from './forecasts/forecast-settings.service';
import { rowCategoriser } from '../import/forecast-categories';
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
  /**
   * The deals of the import's snapshot compared with the latest snapshot: added, changed, read
   * and the same (`unchanged`), and no longer there (`removed`). Zeros for an answer reused.
   */
  comparison: DealComparison;
  /**
   * False when the import changed nothing and its caller asked it then to commit nothing
   * (`commitUnchanged: false`): `snapshotId` is then the latest snapshot, which stands.
   */
  committed: boolean;
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
  step: 'deals' | 'owners' | 'snapshots' | 'committing';
  /**
   * Units done and expected: deal copies read during `deals` (expected when the source knows,
   * else as many as read so far), deals × snapshots during `snapshots`, else 0/1 → 1/1.
   */
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
  /**
   * False (the sync): an import that would change nothing (the same pipelines, no member created,
   * and every deal as the latest snapshot holds it) commits no snapshot and answers
   * `committed: false` with the latest one; the answer of an earlier identical import is not
   * reused either, since only the latest snapshot tells what changed. Default true.
   */
  commitUnchanged?: boolean;
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
  validated: ValidatedCrmImport,
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
  const normaliser = prepareNormaliser(validated.documents, {
    currencies: { configured: currency, home: validated.homeCurrency },
    incremental,
    baseDefinitions:
      base && !validated.documents.pipelines
        ? await baseDefinitions(base._id as string)
        : undefined,
  });
  // The stage mappings in force now decide the categories this import stores (docs/forecasts.md);
  // the demo's mappings name the demo's pipelines and go with it.
  const forecastMappings = replacingDemo ? [] : await readForecastCategoryMappings();
  const onProgress = options.onProgress ?? (() => undefined);
  const deals = new SortedDeals(normaliser, { incremental, required: REQUIRED_PROPERTIES });
  try {
    await readDeals(validated, deals, onProgress);
    // Backfill follows the configured period unit, quarterly when none is set.
    const unit = validated.backfill ? (settings.period ?? 'quarterly') : null;
    const seen = await lookOver(deals, normaliser, {
      snapshotAt: validated.snapshotAt,
      backfillUnit: unit,
      baseSnapshotId: base ? (base._id as string) : null,
      forecastMappings,
    });
    const commitUnchanged = options.commitUnchanged !== false;
    const existing = commitUnchanged ? await findImported(seen.sourceHash) : null;
    if (existing) return existing;
    const importedAt = options.now ?? new Date();
    const guarded = !validated.force;
    if (guarded) {
      checkSnapshotAt(validated.snapshotAt, importedAt);
      checkUsableDeals(seen, validated.mode);
      if (latest && !latest.demo)
        checkPipelinesLeft(normaliser.definitions.length, latest.counts.pipelines);
    }
    if (replacingDemo) await removeDemo(storedSettings);
    const importId = randomUUID();
    let result: CrmImportResult;
    try {
      result = await writeImport(normaliser, deals, seen, {
        demoRemoved: replacingDemo,
        importId,
        importedAt,
        snapshotAt: validated.snapshotAt ?? importedAt,
        backfillUnit: unit,
        forecastMappings,
        sourceHash: seen.sourceHash,
        incremental,
        demo: options.demo === true,
        latest,
        base,
        // The guard against losing deals compares with the latest snapshot, as reads see it.
        guardBase: guarded && latest !== null && !latest.demo,
        definitionsKept: !validated.documents.pipelines,
        onProgress,
        renewLease,
      });
      if (
        !commitUnchanged &&
        latest &&
        nothingChanged(result) &&
        sameDefinitions(normaliser.definitions, await baseDefinitions(latest._id as string))
      ) {
        await discardImport(importId);
        return {
          ...result,
          snapshotId: latest._id as string,
          snapshotAt: latest.snapshotAt,
          snapshotIds: [],
          committed: false,
        };
      }
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
  } finally {
    await deals.close();
  }
}

/**
 * Reads every deal page: each chunk checked (a stream's structural failures are the import's 400,
 * nothing written), each sound deal normalised into the sorted runs.
 */
async function readDeals(
  validated: ValidatedCrmImport,
  deals: SortedDeals,
  onProgress: (progress: ImportProgress) => void,
): Promise<void> {
  const pages = validated.dealPages;
  const validator = validated.dealsChecked ? null : dealStreamValidator(pages.asArray);
  const total = pages.expected ?? 0;
  onProgress({ step: 'deals', done: 0, total });
  await deals.readAll(
    pages,
    validator ? validator.check : (chunk) => chunk.results as HubSpotDeal[],
    {
      stop: () => validator?.full === true,
      onRead: (copies) =>
        onProgress({ step: 'deals', done: copies, total: Math.max(total, copies) }),
    },
  );
  validator?.finish();
}

/** What looking over the sorted deals once, before anything is written, finds. */
interface DealsLookedOver extends DealsSeen {
  sourceHash: string;
  /** Deals that count, in the import's own snapshot. */
  usable: number;
  /** The earliest creation among the deals that count (backfill starts there). */
  earliestCreation: Date | null;
  /** What was skipped or defaulted: pipelines, stages and owners first, then deals in input order. */
  skipped: SkippedItem[];
  /** Incremental imports: owners deals name that are not among the import's owners. */
  strayOwners: Set<string>;
  /** Deals skipped only for their currency, by currency, most first. */
  skippedForCurrency: CurrencySkips[];
}

/**
 * One pass over the sorted deals, before anything is written: the source hash (idempotency), what
 * the guards need, where backfill starts, and the skipped items in input order. It reads the
 * sorted runs, never the database.
 */
async function lookOver(
  deals: SortedDeals,
  normaliser: DealNormaliser,
  head: ConstructorParameters<typeof SourceHasher>[0],
): Promise<DealsLookedOver> {
  const hasher = new SourceHasher(head, normaliser.definitions, normaliser.owners);
  const owners = new Set(normaliser.owners.map((o) => o.ownerId));
  const notes: PlacedNote[] = [];
  const strayOwners = new Set<string>();
  const currencySkips = new CurrencySkipCounter();
  let usable = 0;
  let earliest: number | null = null;
  for await (const { id, deal, removed, notes: dealNotes, skippedCurrency } of deals.deals()) {
    for (const note of dealNotes) notes.push(note);
    currencySkips.add(skippedCurrency);
    if (removed) hasher.removed(id);
    if (!deal) continue;
    usable += 1;
    hasher.deal(deal);
    const created = deal.createdAt?.getTime();
    if (created !== undefined && (earliest === null || created < earliest)) earliest = created;
    if (deal.ownerId !== null && !owners.has(deal.ownerId)) strayOwners.add(deal.ownerId);
  }
  notes.sort((a, b) => a.pos - b.pos || a.sub - b.sub);
  const skipped = [...normaliser.skipped, ...notes.map((n) => n.item)];
  return {
    sourceHash: hasher.digest(skipped),
    usable,
    live: deals.read.live,
    present: deals.read.present,
    firstSkipped: notes[0]?.item,
    earliestCreation: earliest === null ? null : new Date(earliest),
    skipped,
    strayOwners,
    skippedForCurrency: currencySkips.skips(),
  };
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
    comparison: { added: 0, changed: 0, unchanged: 0, removed: 0 },
    committed: true,
    demoRemoved: false,
    skippedForCurrency: [],
  };
}

/** Whether an import written would change nothing a reader sees: no deal and no member differ. */
function nothingChanged(result: CrmImportResult): boolean {
  const { added, changed, removed } = result.comparison;
  return added + changed + removed === 0 && result.counts.membersCreated === 0;
}

/** Whether two lists of definitions are the same pipelines, labels, orders and stages. */
function sameDefinitions(a: NormalisedDefinition[], b: NormalisedDefinition[]): boolean {
  const key = (definitions: NormalisedDefinition[]) =>
    JSON.stringify(
      definitions.map((d) => [
        d.definitionId,
        d.label,
        d.displayOrder,
        d.stages.map((s) => [s.id, s.label, s.order, s.isClosed, s.probability]),
      ]),
    );
  return key(a) === key(b);
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
  /** The latest committed snapshot, by the moment it represents. */
  latest: SnapshotDoc | null;
  /** Incremental: the snapshot the changes apply to (null on an empty database, and for full imports). */
  base: SnapshotDoc | null;
  /** Whether the guard against losing deals applies (not forced, and a latest snapshot not the demo's). */
  guardBase: boolean;
  /** Incremental: `pipelines` was left out, so the latest snapshot's definitions stand. */
  definitionsKept: boolean;
  onProgress: (progress: ImportProgress) => void;
  /** Extends the database's import lease; called every LEASE_RENEWAL_MS while writing. */
  renewLease: () => Promise<void>;
}

/** Deals between two progress reports while writing. */
const PROGRESS_EVERY = 500;

/** How often a long import renews its lease (IMPORT_LEASE_MS is many times this). */
const LEASE_RENEWAL_MS = 30_000;

/**
 * Writes everything an import makes, hidden: snapshots `pending`, members and teams marked. One
 * pass over the deals in id order, merged with the open versions (the state of the snapshot
 * written last) and, when it is another snapshot, with the latest one's: each deal's state in
 * every planned snapshot is compared with its open version and only changes are written, in
 * batches; pipelines and facts are accumulated per snapshot as the deals pass and written at the
 * end. The guard against losing deals is decided by the same pass, before the commit.
 */
async function writeImport(
  normaliser: DealNormaliser,
  deals: SortedDeals,
  seen: DealsLookedOver,
  ctx: WriteContext,
): Promise<CrmImportResult> {
  const counts: CrmImportCounts = {
    pipelines: normaliser.definitions.length,
    stages: normaliser.definitions.reduce((n, d) => n + d.stages.length, 0),
    deals: seen.usable,
    owners: normaliser.owners.length,
    teams: 0,
    membersCreated: 0,
  };
  const mode: ImportMode = ctx.incremental ? 'incremental' : 'full';
  const changes: ImportChanges = { updated: 0, removed: 0 };
  // The import's own snapshot against the one written before it.
  const comparison: DealComparison = { added: 0, changed: 0, unchanged: 0, removed: 0 };
  // Backfilled snapshots get the lower seqs, oldest first, the current one the highest: each
  // snapshot's opportunity versions are written as changes from the one written before it.
  const periodEnds = ctx.backfillUnit
    ? backfillPeriodEnds(ctx.backfillUnit, seen.earliestCreation, ctx.snapshotAt)
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
    skipped: backfilled ? [] : seen.skipped.slice(0, MAX_STORED_SKIPPED),
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
  const owners = await resolveOwners(normaliser.owners, ctx.importId, record);
  counts.teams = owners.teamCount;
  counts.membersCreated = owners.membersCreated;
  await SnapshotModel.updateOne({ _id: primaryId }, { $set: { counts } });
  ctx.onProgress({ step: 'owners', done: 1, total: 1 });

  const backfilled = periodEnds.map(({ at }, i) => ({ id: randomUUID(), seq: firstSeq + i, at }));
  if (backfilled.length > 0)
    await SnapshotModel.insertMany(backfilled.map((s) => snapshotDoc(s.id, s.seq, s.at, true)));
  const plan: PlannedSnapshot[] = [
    ...backfilled.map((s) => ({ ...s, current: false })),
    { id: primaryId, seq: firstSeq + periodEnds.length, at: ctx.snapshotAt, current: true },
  ];
  for (const snapshot of plan) await writeDefinitions(snapshot.id, normaliser.definitions);
  const builds = plan.map((snapshot) => new SnapshotBuild(snapshot, normaliser.definitions));
  // Every row of every snapshot gets its forecast category as of this import, kept ones included.
  const categorise = rowCategoriser(normaliser.definitions, ctx.forecastMappings);

  const definitions = new Map(normaliser.definitions.map((d) => [d.definitionId, d]));
  const linked = ctx.incremental
    ? await linkedOwners(seen.strayOwners, owners.byOwner)
    : new Map<string, { memberId: string; teamId: string }>();
  const ownerOf = (ownerId: string | null) =>
    ownerId === null ? undefined : (owners.byOwner.get(ownerId) ?? linked.get(ownerId));
  const ownerNotes: SkippedItem[] = [];
  const leftNotes: SkippedItem[] = [];
  const definitionsKept = ctx.definitionsKept;

  // The snapshot compared with: an incremental import's base, or the latest for the guard. When it
  // is the snapshot written last, the open versions are its deals: one cursor serves both.
  const compared = ctx.incremental ? ctx.base : ctx.guardBase ? ctx.latest : null;
  const comparedIsOpen = compared !== null && compared.seq === firstSeq - 1;
  const open = await peekableOf(openVersions());
  const other =
    compared && !comparedIsOpen
      ? await peekableOf(versionsInDealOrder(heldAt(compared.seq)))
      : null;
  const newDeals = await peekableOf(deals.deals());
  const writer = new VersionWriter();
  let held = 0;
  let comparedDeals = 0;
  let keptFromCompared = 0;
  let passed = 0;
  const total = plan.length * seen.usable;
  let renewedAt = performance.now();
  ctx.onProgress({ step: 'snapshots', done: 0, total });

  for (;;) {
    const key = lowest(newDeals.head?.id, open.head?.dealId, other?.head?.dealId);
    if (key === undefined) break;
    const incoming = newDeals.head?.id === key ? await newDeals.take() : undefined;
    const openVersion = open.head?.dealId === key ? await open.take() : undefined;
    const inCompared = comparedIsOpen
      ? openVersion
      : other?.head?.dealId === key
        ? await other.take()
        : undefined;

    // The deal's state in the import's own snapshot.
    let current: OpportunityRow | null = null;
    let source: NormalisedDeal | null = null;
    if (incoming?.deal) {
      source = incoming.deal;
      current = opportunityRow(currentState(incoming.deal), ownerOf);
      if (incoming.deal.ownerId !== null && ownerOf(incoming.deal.ownerId) === undefined) {
        ownerNotes.push({
          id: key,
          reason: `deal has hubspot_owner_id "${incoming.deal.ownerId}", which is neither among the owners nor linked to a member: no member; the deal is kept`,
        });
      }
    } else if (ctx.incremental && !incoming && inCompared) {
      current = keptRow(rowOf(inCompared), definitionsKept, definitions, leftNotes);
    }
    if (inCompared) {
      comparedDeals += 1;
      if (incoming?.deal) keptFromCompared += 1;
      if (ctx.incremental && current === null) changes.removed += 1;
    }
    if (ctx.incremental && incoming?.deal) changes.updated += 1;
    if (current) held += 1;

    // Its state in each planned snapshot, oldest first: a version per change.
    let previous: OpportunityRow | null = openVersion ? rowOf(openVersion) : null;
    let previousId: string | null = openVersion ? openVersion._id : null;
    let started: NewVersion | null = null;
    for (let i = 0; i < plan.length; i += 1) {
      const snapshot = plan[i];
      let row: OpportunityRow | null = current;
      if (!snapshot.current) {
        const state = source
          ? stateAt(source, definitions.get(source.definitionId)!, snapshot.at)
          : null;
        // The CRM gives only the current category: a reconstructed state has none of its own.
        row = state ? { ...opportunityRow(state, ownerOf), crmForecastCategory: null } : null;
      }
      if (row) {
        categorise(row);
        withHistories(row, previous, snapshot.at);
        await builds[i].add(row, source);
      }
      const same = previous !== null && row !== null && sameState(previous, row);
      if (snapshot.current) {
        // An incremental import counts as the same only the deals it carried.
        if (same) comparison.unchanged += !ctx.incremental || incoming?.deal ? 1 : 0;
        else if (row) comparison[previous ? 'changed' : 'added'] += 1;
        else if (previous) comparison.removed += 1;
      }
      if (same) continue;
      if (started) {
        started.toSeq = snapshot.seq;
        await writer.insert(started);
        started = null;
      } else if (previousId) await writer.close(previousId, snapshot.seq);
      if (row) {
        started = {
          _id: `${key}@${snapshot.seq}`,
          fromSeq: snapshot.seq,
          toSeq: OPEN_SEQ,
          ...storedFields(row),
        };
      }
      previous = row;
      previousId = null;
    }
    if (started) await writer.insert(started);

    if (!incoming?.deal) continue;
    passed += 1;
    if (passed % PROGRESS_EVERY === 0) {
      ctx.onProgress({ step: 'snapshots', done: Math.min(passed * plan.length, total), total });
      if (performance.now() - renewedAt > LEASE_RENEWAL_MS) {
        await ctx.renewLease();
        renewedAt = performance.now();
      }
    }
  }
  await writer.finish();
  if (ctx.incremental) counts.deals = held;
  const skipped = [...seen.skipped, ...ownerNotes, ...leftNotes];
  if (ctx.guardBase) {
    if (!ctx.incremental) checkKeptDeals(keptFromCompared, comparedDeals);
    else if (ctx.base) checkRemovedDeals(changes.removed, comparedDeals);
  }
  if (ctx.incremental) {
    await SnapshotModel.updateOne(
      { _id: primaryId },
      { $set: { counts, changes, skipped: skipped.slice(0, MAX_STORED_SKIPPED) } },
    );
  }
  for (const build of builds) {
    await build.write();
    await ctx.renewLease();
    ctx.onProgress({ step: 'snapshots', done: total, total });
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
    comparison,
    committed: true,
    demoRemoved: ctx.demoRemoved,
    skippedForCurrency: seen.skippedForCurrency,
  };
}

/**
 * A deal an incremental import does not carry, as the latest snapshot holds it. With new
 * `pipelines`, one whose pipeline or stage is gone leaves (reported), as a full import would skip
 * it, and its outcome follows its stage's new metadata.
 */
function keptRow(
  row: OpportunityRow,
  definitionsKept: boolean,
  definitions: Map<string, NormalisedDefinition>,
  left: SkippedItem[],
): OpportunityRow | null {
  if (definitionsKept) return row;
  const stage = definitions.get(row.definitionId)?.stages.find((s) => s.id === row.stageId);
  if (!stage) {
    left.push({
      id: row.dealId,
      reason: `deal kept from the latest snapshot is in stage "${row.stageId}" of pipeline "${row.definitionId}", which the imported pipelines no longer have; left out of every metric`,
    });
    return null;
  }
  return { ...row, outcome: stage.isClosed ? (stage.probability === 1 ? 'won' : 'lost') : 'open' };
}

/** The lowest of some keys, as `<` orders them; undefined when there is none. */
function lowest(...keys: (string | undefined)[]): string | undefined {
  let low: string | undefined;
  for (const key of keys) if (key !== undefined && (low === undefined || key < low)) low = key;
  return low;
}

/** An async sequence whose next element can be looked at before it is taken. */
interface Peekable<T> {
  readonly head: T | undefined;
  take(): Promise<T>;
}

async function peekableOf<T>(source: AsyncIterable<T>): Promise<Peekable<T>> {
  const it = source[Symbol.asyncIterator]();
  let head = await it.next();
  return {
    get head() {
      return head.done ? undefined : head.value;
    },
    async take() {
      const value = head.value as T;
      head = await it.next();
      return value;
    },
  };
}
