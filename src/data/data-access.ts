import type { Connection } from 'mongoose';
import type { MemberDoc } from '../models/member.model';
import type { SettingsDoc } from '../models/settings.model';
import type { TargetDoc } from '../models/target.model';
import type { TeamDoc } from '../models/team.model';
import { ImportQueue } from '../import/import-queue';
import { DEFAULT_SNAPSHOT_RETENTION_DAYS } from '../domain/snapshot-retention';
import type { EmbeddedMongoServer } from '../store/server';
import type { KeptGraphQLAnswer } from '../graphql/answer-cache.plugin';
import { AnswerCache } from './answer-cache';
import { RequestData, requestData } from './request-data';
import { SnapshotCache } from './snapshot-cache';
import { VersionClock } from './version-clock';
import { VersionedCache } from './versioned-cache';
import type { KeptRestAnswer } from '../rest/kept-answer';

export interface DataAccessOptions {
  connection: Connection;
  /** The embedded server when it runs in this process (the version counters are read from its memory). */
  embedded: EmbeddedMongoServer | null;
  /** CACHE_MAX_AGE_MS; 0 keeps nothing mutable. */
  cacheMaxAgeMs: number;
  /** SNAPSHOT_RETENTION_DAYS, which this instance's imports apply; default DEFAULT_SNAPSHOT_RETENTION_DAYS. */
  snapshotRetentionDays?: number;
  now?: () => number;
}

/** The latest committed snapshot, as cached. */
export interface LatestSnapshotDoc {
  _id: string;
  snapshotAt: Date;
}

/**
 * Everything one gateway instance keeps of the database between requests, made once per app in
 * `buildApp` and reached by requests through their context: the version clock every cache is
 * checked against, the caches of mutable reads (by scope), the committed snapshots, the metrics
 * evaluated on them, and the answers kept whole. Nothing here is shared with another app in the
 * same process, so two instances in one process behave as two processes would.
 */
export class DataAccess {
  private readonly clock: VersionClock;

  readonly latestSnapshot: VersionedCache<LatestSnapshotDoc | null>;

  readonly settings: VersionedCache<SettingsDoc | null>;

  /** Members by id (full lean documents; authentication reads role and team from them too). */
  readonly membersById: VersionedCache<MemberDoc | null>;

  /** Members of a team, in id order. */
  readonly membersByTeam: VersionedCache<MemberDoc[]>;

  readonly teamsById: VersionedCache<TeamDoc | null>;

  /** Target sets by member and year. */
  readonly targetsByMember: VersionedCache<TargetDoc | null>;

  /** Every member's target sets of a year. */
  readonly targetsByYear: VersionedCache<TargetDoc[]>;

  /** Committed snapshots: immutable, kept without versions. */
  readonly snapshots = new SnapshotCache();

  /**
   * The recent evaluations of all metrics of a facts object (metrics.service.ts). Keyed by the
   * facts object, which lives as long as SnapshotCache keeps it.
   */
  readonly metricsMemo = new WeakMap<object, unknown>();

  /**
   * Metric names as checked, by the list they were parsed from (metrics.service.ts): a URL's
   * requests share one input through its AnswerRecipe, so its list is parsed once.
   */
  readonly metricNames = new WeakMap<readonly string[], unknown>();

  /** This instance's imports, one at a time. */
  readonly imports = new ImportQueue();

  /** SNAPSHOT_RETENTION_DAYS: what this instance's imports keep of older snapshots. */
  readonly snapshotRetentionDays: number;

  /** Serialised REST answers (register-routes.ts, sent by kept-answer-lane.ts). */
  readonly restAnswers: AnswerCache<KeptRestAnswer>;

  /** GraphQL query answers (answer-cache.plugin.ts). */
  readonly graphqlAnswers: AnswerCache<KeptGraphQLAnswer>;

  constructor(options: DataAccessOptions) {
    const caching = options.cacheMaxAgeMs > 0;
    this.snapshotRetentionDays = options.snapshotRetentionDays ?? DEFAULT_SNAPSHOT_RETENTION_DAYS;
    this.clock = new VersionClock({
      connection: options.connection,
      dbName: options.connection.name,
      embedded: options.embedded,
      maxAgeMs: options.cacheMaxAgeMs,
      now: options.now,
    });
    this.latestSnapshot = new VersionedCache('pipeline_snapshots', 1, caching);
    this.settings = new VersionedCache('settings', 1, caching);
    this.membersById = new VersionedCache('members', 10_000, caching);
    this.membersByTeam = new VersionedCache('members', 1_000, caching);
    this.teamsById = new VersionedCache('teams', 10_000, caching);
    this.targetsByMember = new VersionedCache('targets', 10_000, caching);
    this.targetsByYear = new VersionedCache('targets', 100, caching);
    this.restAnswers = new AnswerCache({ enabled: caching, now: options.now });
    this.graphqlAnswers = new AnswerCache({ enabled: caching, now: options.now });
  }

  /**
   * Resolves once the first content check is done (VersionClock): awaited before the first
   * request, so that no cache is filled before it.
   */
  async ready(): Promise<void> {
    await this.clock.checkContent();
  }

  /** Whether the version counters are in this process (the embedded store): requestNow then always answers. */
  get countersInProcess(): boolean {
    return this.clock.countersInProcess;
  }

  /** A request's data with the counters as of now, when they are in this process; undefined otherwise. */
  requestNow(): RequestData | undefined {
    const view = this.clock.viewNow();
    return view && requestData(view);
  }

  /**
   * Calls `callback` with a request's data whose counters are read after this call (at once where
   * they are in this process), or with the read's error; with no promise per request.
   */
  requestThen(callback: (error: unknown, data: RequestData | undefined) => void): void {
    this.clock.viewThen((error, view) => callback(error, view && requestData(view)));
  }

  /** A request's data, its counters read when first needed (RequestData). */
  request(): RequestData {
    return this.requestNow() ?? new RequestData(() => this.clock.view());
  }
}
