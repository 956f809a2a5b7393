import type { Connection } from 'mongoose';
import type { MemberDoc } from '../models/member.model';
import type { SettingsDoc } from '../models/settings.model';
import type { TargetDoc } from '../models/target.model';
import type { TeamDoc } from '../models/team.model';
import type { TokenDoc } from '../models/token.model';
import type { ForecastCall } from '../domain/forecast-calls';
import { ImportQueue } from '../import/import-queue';
import { DEFAULT_SNAPSHOT_RETENTION_DAYS } from '../domain/snapshot-retention';
import { AnswerCache, type KeptGraphQLAnswer, type KeptRestAnswer } from './answer-cache';
import { MetricsMemo } from './metrics-memo';
import { RequestData } from './request-data';
import { SnapshotCache } from './snapshot-cache';
import { VersionClock } from './version-clock';
import { VersionedCache } from './versioned-cache';

export interface DataAccessOptions {
  connection: Connection;
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

  /** Records of issued member tokens by token id (authentication checks one per request). */
  readonly tokensById: VersionedCache<TokenDoc | null>;

  /**
   * The check of the admin token stored in the database (one entry), read again whenever the
   * `tokens` version moves, which a rotation moves (src/auth/secrets.ts).
   */
  readonly storedAdminToken: VersionedCache<((token: string) => boolean) | null>;

  /** Target sets by member and year. */
  readonly targetsByMember: VersionedCache<TargetDoc | null>;

  /** Every member's target sets of a year. */
  readonly targetsByYear: VersionedCache<TargetDoc[]>;

  /** Every team, in id order (one entry): the company forecast lists them all. */
  readonly allTeams: VersionedCache<TeamDoc[]>;

  /** The forecast calls of a period, in counting order, by period name. */
  readonly forecastCalls: VersionedCache<ForecastCall[]>;

  /** Committed snapshots: immutable, kept without versions. */
  readonly snapshots = new SnapshotCache();

  /** The metrics evaluated on committed facts (metrics.service.ts). */
  readonly metrics = new MetricsMemo();

  /** This instance's imports, one at a time. */
  readonly imports = new ImportQueue();

  /** SNAPSHOT_RETENTION_DAYS: what this instance's imports keep of older snapshots. */
  readonly snapshotRetentionDays: number;

  /** Serialised REST answers (register-routes.ts). */
  readonly restAnswers: AnswerCache<KeptRestAnswer>;

  /** GraphQL query answers (answer-cache.plugin.ts). */
  readonly graphqlAnswers: AnswerCache<KeptGraphQLAnswer>;

  constructor(options: DataAccessOptions) {
    const caching = options.cacheMaxAgeMs > 0;
    this.snapshotRetentionDays = options.snapshotRetentionDays ?? DEFAULT_SNAPSHOT_RETENTION_DAYS;
    this.clock = new VersionClock({
      connection: options.connection,
      maxAgeMs: options.cacheMaxAgeMs,
      now: options.now,
    });
    this.latestSnapshot = new VersionedCache('pipeline_snapshots', 1, caching);
    this.settings = new VersionedCache('settings', 1, caching);
    this.membersById = new VersionedCache('members', 10_000, caching);
    this.membersByTeam = new VersionedCache('members', 1_000, caching);
    this.teamsById = new VersionedCache('teams', 10_000, caching);
    this.tokensById = new VersionedCache('tokens', 10_000, caching);
    this.storedAdminToken = new VersionedCache('tokens', 1, caching);
    this.targetsByMember = new VersionedCache('targets', 10_000, caching);
    this.targetsByYear = new VersionedCache('targets', 100, caching);
    this.allTeams = new VersionedCache('teams', 1, caching);
    this.forecastCalls = new VersionedCache('forecast_submissions', 100, caching);
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

  /** A request's data, its counters read when first needed (RequestData). */
  request(): RequestData {
    return new RequestData(() => this.clock.view());
  }
}
