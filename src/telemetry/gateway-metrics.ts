import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { CrmApiBudget } from '../crm/connector';
import type { CacheStats } from '../data/cache-stats';
import type { EventsMetrics } from '../events/events-metrics';
import type { ImportReport } from '../import/import-queue';
import type { SyncRunReport } from '../sync/crm-sync';

/** What the metrics read when scraped: the app's caches and its HubSpot client. */
export interface MetricSources {
  /** The caches by name (`rest_answers`, `graphql_answers`, `snapshots`, `snapshot_facts`). */
  caches: Record<string, CacheStats>;
  /** What HubSpot last said of the API requests left. */
  crmBudget: () => CrmApiBudget;
}

/** GraphQL operation names kept as label values; later new names count as `(other)`. */
const MAX_OPERATION_NAMES = 200;
const MAX_OPERATION_NAME_LENGTH = 100;

/** Request durations, in seconds: from a cached answer (sub-millisecond) to the time budget. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Webhook delivery latency, from an event's publication to its 2xx: sub-second to retries hours later. */
const DELIVERY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200, 36000];
/** Import and sync durations: seconds to minutes. */
const JOB_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

type HttpLabels = 'method' | 'route' | 'status_code';
type GraphQLLabels = 'operation_name' | 'operation_type' | 'outcome';

/**
 * The app's Prometheus metrics, in a registry of its own (never prom-client's global one: two
 * apps in one process keep separate counts). Counting costs a map lookup and a histogram
 * observation per request; everything read from elsewhere (caches, HubSpot's budget, the
 * process) is read only when `/metrics` is scraped. The process metrics (CPU, memory, event-loop
 * lag, GC) are set up on the first scrape, since prom-client's GC observer and event-loop monitor
 * run from then on for as long as the process does: an app never scraped (a test's) starts none.
 */
export class GatewayMetrics {
  readonly registry = new Registry();

  #processMetrics = false;

  readonly #http: Histogram<HttpLabels>;

  /** One child per method, route and status seen: the label hash is computed once per series. */
  readonly #httpSeries = new Map<string, ReturnType<Histogram<HttpLabels>['labels']>>();

  readonly #graphql: Histogram<GraphQLLabels>;

  readonly #operationNames = new Set<string>();

  readonly #imports: Histogram<'mode' | 'outcome'>;

  readonly #syncs: Histogram<'trigger' | 'mode' | 'outcome'>;

  constructor(sources: MetricSources) {
    const registers = [this.registry];
    this.#http = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP requests by method, route template (the path as routed, `unmatched` for none) and status, and how long they took to answer',
      labelNames: ['method', 'route', 'status_code'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.#graphql = new Histogram({
      name: 'graphql_operation_duration_seconds',
      help: 'GraphQL operations by name, type and outcome (ok, error: answered with errors, invalid: did not parse or validate), and how long they took',
      labelNames: ['operation_name', 'operation_type', 'outcome'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.#imports = new Histogram({
      name: 'gateway_import_duration_seconds',
      help: 'CRM imports by mode and outcome (committed, reused: the same data again, refused: the guard or the lease, failed), and how long they ran',
      labelNames: ['mode', 'outcome'],
      buckets: JOB_BUCKETS,
      registers,
    });
    this.#syncs = new Histogram({
      name: 'gateway_sync_duration_seconds',
      help: 'CRM syncs by trigger (api, cli, schedule), mode and outcome (ok, failed, refused, skipped), and how long they ran',
      labelNames: ['trigger', 'mode', 'outcome'],
      buckets: JOB_BUCKETS,
      registers,
    });
    const caches = Object.entries(sources.caches);
    new Counter({
      name: 'gateway_cache_lookups_total',
      help: 'Lookups of the caches, by cache and result (hit, miss); the hit ratio over time is rate(hit) / rate(hit + miss)',
      labelNames: ['cache', 'result'],
      registers,
      collect() {
        this.reset();
        for (const [cache, stats] of caches) {
          this.inc({ cache, result: 'hit' }, stats.hits);
          this.inc({ cache, result: 'miss' }, stats.misses);
        }
      },
    });
    new Gauge({
      name: 'gateway_cache_hit_ratio',
      help: 'Share of lookups that found what they asked for since the start, by cache (absent before the first lookup)',
      labelNames: ['cache'],
      registers,
      collect() {
        this.reset();
        for (const [cache, stats] of caches) {
          const lookups = stats.hits + stats.misses;
          if (lookups > 0) this.set({ cache }, stats.hits / lookups);
        }
      },
    });
    new Gauge({
      name: 'gateway_crm_api_requests_remaining',
      help: 'CRM API requests left, as the CRM last said (HubSpot X-HubSpot-RateLimit-Remaining, -Daily-Remaining; Salesforce Sforce-Limit-Info, daily), by window (rolling, daily); absent before any answer said it',
      labelNames: ['window'],
      registers,
      collect() {
        this.reset();
        const budget = sources.crmBudget();
        if (budget.rolling) this.set({ window: 'rolling' }, budget.rolling.remaining);
        if (budget.daily) this.set({ window: 'daily' }, budget.daily.remaining);
      },
    });
    new Gauge({
      name: 'gateway_crm_api_requests_limit',
      help: 'CRM API requests allowed per window, as the CRM last said (HubSpot X-HubSpot-RateLimit-Max, -Daily; Salesforce Sforce-Limit-Info, daily)',
      labelNames: ['window'],
      registers,
      collect() {
        this.reset();
        const budget = sources.crmBudget();
        if (budget.rolling?.max != null) this.set({ window: 'rolling' }, budget.rolling.max);
        if (budget.daily?.max != null) this.set({ window: 'daily' }, budget.daily.max);
      },
    });
  }

  /**
   * The instance's events: its webhook delivery attempts by outcome and how long each took, the
   * latency of each successful delivery, and the outbox depth (read from the database at each
   * scrape, every instance's).
   */
  observeEvents(events: EventsMetrics): void {
    const registers = [this.registry];
    const attempts = new Histogram({
      name: 'gateway_webhook_attempt_duration_seconds',
      help: 'Webhook delivery attempts of this instance by outcome (succeeded, retrying: failed and tried again later, failed: the last try failed or the endpoint answered 410), and how long each took',
      labelNames: ['outcome'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    const latency = new Histogram({
      name: 'gateway_webhook_delivery_latency_seconds',
      help: 'From an event entering the outbox to its delivery answered 2xx, retries included, for the deliveries this instance completed',
      buckets: DELIVERY_BUCKETS,
      registers,
    });
    events.onAttempt((report) => {
      attempts.labels(report.outcome).observe(report.attemptSeconds);
      if (report.latencySeconds !== null) latency.observe(report.latencySeconds);
    });
    new Gauge({
      name: 'gateway_events_outbox_depth',
      help: "What the outbox holds undone, every instance's: events not yet fanned out to webhooks (queue=events), deliveries waiting or being sent (queue=deliveries); absent when the database did not answer",
      labelNames: ['queue'],
      registers,
      async collect() {
        this.reset();
        // A database that does not answer leaves the depth out, not the whole scrape.
        const depth = await events.outboxDepth().catch(() => null);
        if (depth === null) return;
        this.set({ queue: 'events' }, depth.events);
        this.set({ queue: 'deliveries' }, depth.deliveries);
      },
    });
  }

  /** One HTTP request answered. */
  httpRequest(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let series = this.#httpSeries.get(key);
    if (series === undefined) {
      series = this.#http.labels(method, route, String(status));
      this.#httpSeries.set(key, series);
    }
    series.observe(seconds);
  }

  /** One GraphQL operation answered; `name` null for an anonymous one, undefined when it did not validate. */
  graphqlOperation(
    name: string | null | undefined,
    type: string | undefined,
    outcome: 'ok' | 'error' | 'invalid',
    seconds: number,
  ): void {
    this.#graphql.labels(this.#operationLabel(name), type ?? '(unknown)', outcome).observe(seconds);
  }

  /** Bounds the label's values: a client choosing operation names cannot grow the series forever. */
  #operationLabel(name: string | null | undefined): string {
    if (name === undefined) return '(invalid)';
    if (name === null) return '(anonymous)';
    if (name.length > MAX_OPERATION_NAME_LENGTH) return '(other)';
    if (this.#operationNames.has(name)) return name;
    if (this.#operationNames.size >= MAX_OPERATION_NAMES) return '(other)';
    this.#operationNames.add(name);
    return name;
  }

  readonly importEnded = (report: ImportReport): void => {
    this.#imports.labels(report.mode, report.outcome).observe(report.seconds);
  };

  readonly syncEnded = (report: SyncRunReport): void => {
    this.#syncs
      .labels(report.trigger, report.mode ?? 'none', report.outcome)
      .observe(report.seconds);
  };

  /** The exposition (Prometheus text format) and its content type. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    if (!this.#processMetrics) {
      this.#processMetrics = true;
      collectDefaultMetrics({ register: this.registry });
    }
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
