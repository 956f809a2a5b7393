import type { AttemptReport } from './webhooks/delivery-worker';

export type { AttemptReport };

/**
 * What an instance tells about its events, for GET /metrics: a registry reads the depth when it
 * is scraped, keeps counters of attempts, and feeds histograms from `onAttempt`.
 */
export interface EventsMetrics {
  /** Events not fanned out yet, and deliveries waiting or being sent, as stored now (every instance's). */
  outboxDepth(): Promise<{ events: number; deliveries: number }>;
  /** This instance's delivery attempts since it started, by outcome. */
  attempts(): Readonly<Record<AttemptReport['outcome'], number>>;
  /** Calls `listener` after each attempt this instance makes; answers the function that stops it. */
  onAttempt(listener: (report: AttemptReport) => void): () => void;
}
