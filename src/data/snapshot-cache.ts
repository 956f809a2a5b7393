/**
 * Reads of committed snapshots, cached in memory by snapshot id. A committed snapshot never
 * changes (definitions, pipelines, facts) until retention removes it whole, so these reads are
 * kept across requests while the `pruned_snapshots` version stands still, and all dropped when it
 * moves (a removal runs at most once per import). The cache holds a bounded number of
 * snapshots and drops the least recently used one. Settings, targets and "which snapshot is the
 * latest" are not kept here: they change (DataAccess keeps them by version). Operators in
 * filters are ours, so they are marked `trusted()` (filters are sanitised globally).
 */
import { trusted } from 'mongoose';
import { DefinitionModel } from '../models/definition.model';
import { unpackDayBuckets } from '../models/packed-day-buckets';
import { unpackForecastDays } from '../models/packed-forecast-days';
import { PipelineFactsModel } from '../models/pipeline-facts.model';
import { PipelineKind, PipelineModel } from '../models/pipeline.model';
import { SnapshotModel } from '../models/snapshot.model';
import type { DefinitionView, PipelineView, SnapshotView } from '../domain/snapshot-views';
import type { PipelineFacts } from '../domain/pipeline-facts';
import { CacheStats } from './cache-stats';
import type { DealStates } from '../domain/deal-states';
import { DealStatesModel, type DealStatesChunkDoc } from '../models/deal-states.model';
import { unpackDealStates } from '../models/packed-deal-states';
import type { RequestData } from './request-data';

interface Entry {
  snapshot: SnapshotView;
  definitions?: Promise<DefinitionView[]>;
  pipelines?: Promise<PipelineView[]>;
  facts: Map<string, PipelineFacts | null>;
  /** Deal states by definition id; null: the definition has no deal in the snapshot. */
  dealStates: Map<string, Promise<DealStates | null>>;
  /** Deals in the deal states read so far. */
  deals: number;
}

/** Bounds of the cache. Whichever is reached first evicts the least recently used snapshots. */
export interface SnapshotCacheLimits {
  /** Snapshots kept; the default covers a 104-period time series plus the recent ones. */
  snapshots: number;
  /** Facts documents kept over all snapshots (each is at most 366 day buckets). */
  facts: number;
  /** Deals kept in deal states over all snapshots (about 150 bytes each); default 1 000 000. */
  deals?: number;
}

const DEFAULT_LIMITS: SnapshotCacheLimits = { snapshots: 128, facts: 20_000, deals: 1_000_000 };

const KIND_RANK: Record<PipelineKind, number> = { complete: 0, team: 1, member: 2 };

function comparePipelines(a: PipelineView, b: PipelineView): number {
  return KIND_RANK[a.kind] - KIND_RANK[b.kind] || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

export class SnapshotCache {
  private readonly entries = new Map<string, Entry>();

  /** The `pruned_snapshots` version the entries were read under; -1: none yet. */
  private version = -1;

  /** The entry touched last: touching it again changes nothing. */
  private lastTouched: string | undefined;

  private factsCount = 0;

  private dealsCount = 0;

  /** Facts being read, by `<snapshotId>:<pipelineId>`: a request missing them joins the read. */
  private readonly reading = new Map<string, Promise<PipelineFacts | null>>();

  /**
   * Lookups of committed snapshots, and of their pipeline facts, that found them kept (shared
   * with the stand-in caches of requests that arrived before a removal).
   */
  readonly stats: { snapshots: CacheStats; facts: CacheStats };

  constructor(
    private readonly limits: SnapshotCacheLimits = DEFAULT_LIMITS,
    stats?: { snapshots: CacheStats; facts: CacheStats },
  ) {
    this.stats = stats ?? { snapshots: new CacheStats(), facts: new CacheStats() };
  }

  /**
   * The cache `data`'s request reads through: this one when its entries belong to the request's
   * view (started over when a removal happened since), else a cache of its own, so that a request
   * that arrived before a removal another request has already seen neither serves from nor
   * fills the shared entries.
   */
  private async under(data: RequestData): Promise<SnapshotCache> {
    const view = await data.ensureView();
    return this.current(view.versions.pruned_snapshots) ? this : new SnapshotCache(this.limits, this.stats);
  }

  private current(version: number): boolean {
    if (version === this.version) return true;
    if (version < this.version) return false;
    this.entries.clear();
    this.reading.clear();
    this.factsCount = 0;
    this.dealsCount = 0;
    this.lastTouched = undefined;
    this.version = version;
    return true;
  }

  /** Drops least recently used snapshots until both limits hold; `keep` (the one in use) stays. */
  private evict(keep?: string): void {
    for (const [id, entry] of this.entries) {
      if (
        this.entries.size <= this.limits.snapshots &&
        this.factsCount <= this.limits.facts &&
        this.dealsCount <= (this.limits.deals ?? DEFAULT_LIMITS.deals!)
      )
        return;
      if (id === keep) continue;
      this.entries.delete(id);
      this.factsCount -= entry.facts.size;
      this.dealsCount -= entry.deals;
    }
  }

  private touch(id: string): Entry | undefined {
    const entry = this.entries.get(id);
    if (entry && id !== this.lastTouched) {
      this.lastTouched = id;
      // Map keeps insertion order: re-inserting marks the entry most recently used.
      this.entries.delete(id);
      this.entries.set(id, entry);
    }
    return entry;
  }

  private remember(snapshot: SnapshotView): Entry {
    const entry: Entry = { snapshot, facts: new Map(), dealStates: new Map(), deals: 0 };
    this.entries.set(snapshot.id, entry);
    this.lastTouched = snapshot.id;
    this.evict(snapshot.id);
    return entry;
  }

  /** Committed snapshots by id, in key order; null for unknown, uncommitted or removed ids. One query for the misses. */
  async snapshots(data: RequestData, ids: readonly string[]): Promise<Array<SnapshotView | null>> {
    return (await this.under(data)).readSnapshots(ids);
  }

  private async readSnapshots(ids: readonly string[]): Promise<Array<SnapshotView | null>> {
    // Answers come from here: with a small cache, remembering one snapshot may evict another of the batch.
    const answers = new Map<string, SnapshotView>();
    const missing: string[] = [];
    for (const id of new Set(ids)) {
      const entry = this.touch(id);
      if (entry) answers.set(id, entry.snapshot);
      else missing.push(id);
    }
    this.stats.snapshots.hit(answers.size);
    this.stats.snapshots.miss(missing.length);
    if (missing.length > 0) {
      const docs = await SnapshotModel.find({ _id: trusted({ $in: missing }), status: 'committed' }, { snapshotAt: 1 })
        .lean();
      for (const doc of docs) {
        const snapshot = { id: doc._id, snapshotAt: new Date(doc.snapshotAt) };
        answers.set(snapshot.id, snapshot);
        this.remember(snapshot);
      }
    }
    return ids.map((id) => answers.get(id) ?? null);
  }

  /**
   * Primes the cache with a snapshot `data`'s request read as committed (saves the lookup), as
   * DataLoader's `prime` does.
   */
  prime(data: RequestData, snapshot: SnapshotView): void {
    const view = data.view;
    if (view && this.current(view.versions.pruned_snapshots) && !this.entries.has(snapshot.id))
      this.remember(snapshot);
  }

  private async entry(snapshotId: string): Promise<Entry> {
    const [snapshot] = await this.readSnapshots([snapshotId]);
    if (!snapshot) throw new Error(`snapshot ${snapshotId} is not committed`);
    return this.entries.get(snapshotId) ?? this.remember(snapshot);
  }

  /** Definitions of a committed snapshot, by display order, stages by order. */
  async definitions(data: RequestData, snapshotId: string): Promise<DefinitionView[]> {
    return (await this.under(data)).readDefinitions(snapshotId);
  }

  private async readDefinitions(snapshotId: string): Promise<DefinitionView[]> {
    const entry = await this.entry(snapshotId);
    entry.definitions ??= DefinitionModel.find({ snapshotId })
      .sort({ displayOrder: 1, definitionId: 1 })
      .lean()
      .then((docs) =>
        docs.map((doc) => ({
          snapshotId,
          id: doc.definitionId,
          label: doc.label,
          displayOrder: doc.displayOrder,
          stages: [...doc.stages]
            .sort((a, b) => a.order - b.order)
            .map((s) => ({ id: s.id, label: s.label, order: s.order, isClosed: s.isClosed, probability: s.probability })),
        })),
      );
    return entry.definitions.catch((error) => {
      entry.definitions = undefined; // do not cache a failure
      throw error;
    });
  }

  /** Pipelines of a committed snapshot: per definition the complete one, then teams, then members. */
  async pipelines(data: RequestData, snapshotId: string): Promise<PipelineView[]> {
    return (await this.under(data)).readPipelines(snapshotId);
  }

  private async readPipelines(snapshotId: string): Promise<PipelineView[]> {
    const entry = await this.entry(snapshotId);
    entry.pipelines ??= PipelineModel.find({ snapshotId })
      .lean()
      .then((docs) =>
        docs
          .map((doc) => ({
            snapshotId,
            id: doc.pipelineId,
            definitionId: doc.definitionId,
            kind: doc.kind,
            teamId: doc.teamId ?? null,
            memberId: doc.memberId ?? null,
            isSubPipeline: doc.isSubPipeline,
          }))
          .sort(comparePipelines),
      );
    return entry.pipelines.catch((error) => {
      entry.pipelines = undefined;
      throw error;
    });
  }

  /**
   * Facts by `[snapshotId, pipelineId]`, in key order; null where the pipeline is not in the
   * snapshot. Every snapshot must be committed. One query for the misses that no other request is
   * reading already: requests arriving together after an import would each read the same facts.
   */
  async facts(data: RequestData, keys: ReadonlyArray<readonly [string, string]>): Promise<Array<PipelineFacts | null>> {
    return (await this.under(data)).readFactsOf(keys);
  }

  private async readFactsOf(keys: ReadonlyArray<readonly [string, string]>): Promise<Array<PipelineFacts | null>> {
    const snapshotIds = [...new Set(keys.map(([snapshotId]) => snapshotId))];
    const snapshots = await this.readSnapshots(snapshotIds);
    const uncommitted = snapshotIds.filter((_, i) => snapshots[i] === null);
    if (uncommitted.length > 0) throw new Error(`snapshots ${uncommitted.join(', ')} are not committed`);
    // Answers come from here, not from the entries, which a large batch may already have evicted.
    const answers = new Map<string, PipelineFacts | null | Promise<PipelineFacts | null>>();
    const missing: string[] = [];
    for (const [snapshotId, pipelineId] of keys) {
      const id = `${snapshotId}:${pipelineId}`;
      if (answers.has(id)) continue;
      const kept = this.entries.get(snapshotId)?.facts;
      if (kept?.has(pipelineId)) answers.set(id, kept.get(pipelineId)!);
      else if (this.reading.has(id)) answers.set(id, this.reading.get(id)!);
      else missing.push(id);
    }
    this.stats.facts.hit(answers.size);
    this.stats.facts.miss(missing.length);
    if (missing.length > 0) {
      const read = this.readFacts(missing);
      missing.forEach((id, i) => {
        const one = read.then((found) => found[i]);
        this.reading.set(id, one);
        answers.set(id, one);
      });
      const forget = () => missing.forEach((id) => this.reading.delete(id));
      read.then(forget, forget);
      await read;
      this.evict(keys.at(-1)?.[0]);
    }
    return Promise.all(keys.map(([snapshotId, pipelineId]) => answers.get(`${snapshotId}:${pipelineId}`) ?? null));
  }

  /** Reads facts by `_id` (`<snapshotId>:<pipelineId>`), in id order, and keeps them. */
  private async readFacts(ids: readonly string[]): Promise<Array<PipelineFacts | null>> {
    const docs = await PipelineFactsModel.find({ _id: trusted({ $in: [...ids] }) }).lean();
    const found = new Map(docs.map((doc) => [doc._id, doc]));
    return ids.map((id) => {
      const doc = found.get(id);
      const snapshotId = id.slice(0, id.indexOf(':'));
      const pipelineId = id.slice(snapshotId.length + 1);
      const facts: PipelineFacts | null = doc
        ? {
            snapshotId: doc.snapshotId,
            pipelineId: doc.pipelineId,
            definitionId: doc.definitionId,
            kind: doc.kind,
            teamId: doc.teamId ?? null,
            memberId: doc.memberId ?? null,
            snapshotAt: new Date(doc.snapshotAt),
            year: doc.year,
            openCount: doc.openCount,
            openAmount: doc.openAmount,
            openWeighted: doc.openWeighted,
            memberIds: [...doc.memberIds],
            days: doc.packedDays ? unpackDayBuckets(bytesOf(doc.packedDays)) : (doc.days ?? []).map((b) => ({ ...b })),
            forecastDays: doc.packedForecastDays ? unpackForecastDays(bytesOf(doc.packedForecastDays)) : undefined,
          }
        : null;
      const entry = this.entries.get(snapshotId);
      if (entry && !entry.facts.has(pipelineId)) {
        entry.facts.set(pipelineId, facts);
        this.factsCount += 1;
      }
      return facts;
    });
  }

  /**
   * The deal states of one definition of a committed snapshot (domain/deal-states.ts), null when
   * the definition has no deal there. Requests asking at once share one read.
   */
  async dealStates(data: RequestData, snapshotId: string, definitionId: string): Promise<DealStates | null> {
    return (await this.under(data)).readDealStates(snapshotId, definitionId);
  }

  private async readDealStates(snapshotId: string, definitionId: string): Promise<DealStates | null> {
    const entry = await this.entry(snapshotId);
    let states = entry.dealStates.get(definitionId);
    if (!states) {
      states = DealStatesModel.find({ snapshotId, definitionId })
        .sort({ chunk: 1 })
        .lean<DealStatesChunkDoc[]>()
        .then((chunks) => {
          if (chunks.length === 0) return null;
          const unpacked = unpackDealStates({ snapshotId, definitionId }, chunks);
          if (this.entries.get(snapshotId) === entry) {
            entry.deals += unpacked.count;
            this.dealsCount += unpacked.count;
            this.evict(snapshotId);
          }
          return unpacked;
        });
      entry.dealStates.set(definitionId, states);
      states.catch(() => entry.dealStates.delete(definitionId)); // do not cache a failure
    }
    return states;
  }

  /** How much is cached (tests, diagnostics). */
  size(): { snapshots: number; facts: number; deals: number } {
    return { snapshots: this.entries.size, facts: this.factsCount, deals: this.dealsCount };
  }
}

/** The bytes of a binary field as a lean read answers it: a Buffer, or the driver's Binary. */
function bytesOf(value: Uint8Array | { buffer: Uint8Array }): Uint8Array {
  return value instanceof Uint8Array ? value : value.buffer;
}
