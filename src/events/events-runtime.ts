import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Connection } from 'mongoose';
import { trusted } from 'mongoose';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config';
import { EventModel, type EventDoc } from '../models/event.model';
import { DeliveryModel } from '../models/webhook-delivery.model';
import { EventTail } from './event-tail';
import type { AttemptReport, EventsMetrics } from './events-metrics';
import { sweepOutbox } from './outbox/sweep';
import { pruneEvents } from './retention';
import { publishSnapshotEvents, type DeriveSnapshotEvents } from './snapshot-events';
import { DeliveryWorker } from './webhooks/delivery-worker';
import { FAN_OUT_ROUND, fanOut } from './webhooks/fan-out';

/** How often the sweep (sweep.ts) and a fan-out of whatever is left run, besides every poll's work. */
const SWEEP_MS = 10_000;
/** How often events past EVENT_RETENTION_DAYS are removed. */
const PRUNE_MS = 600_000;
/** Deliveries one instance sends at once. */
const CONCURRENCY = 16;
/** Events fanned out per poll while the instance answers requests. */
const BUSY_FAN_OUT_ROUND = 8;

export interface EventsRuntimeOptions {
  connection: Connection;
  config: Pick<
    GatewayConfig,
    | 'eventsPollMs'
    | 'eventRetentionDays'
    | 'webhookRetryScheduleMs'
    | 'webhookTimeoutMs'
    | 'webhookAllowPrivateUrls'
  >;
  logger: Pick<Logger, 'warn' | 'info'>;
  /** Whether the instance is answering requests now (webhook deliveries give way: delivery-worker.ts). */
  busy: () => boolean;
  /** The events a snapshot's commit adds to `snapshot.committed` (alerts, deal changes). */
  derive: DeriveSnapshotEvents;
  now?: () => number;
}

type Listener = (events: readonly EventDoc[]) => void;

/**
 * The events work of one gateway instance, owned by its app (started when it is ready, stopped
 * when it closes): every EVENTS_POLL_MS it publishes the events of snapshots whose import has
 * settled, reads the outbox for its subscribers (EventTail), fans new events out to webhooks and
 * sends the deliveries that are due (DeliveryWorker); every SWEEP_MS it finishes what crashed
 * writers left (sweep.ts); every PRUNE_MS it removes what retention no longer keeps. Every step is
 * safe with any number of instances at once: events and deliveries have derived ids, deliveries
 * are sent under a lease.
 */
export class EventsRuntime implements EventsMetrics {
  private readonly tail: EventTail;

  private readonly worker: DeliveryWorker;

  private readonly listeners = new Set<Listener>();

  private readonly attemptListeners = new Set<(report: AttemptReport) => void>();

  private readonly counts: Record<AttemptReport['outcome'], number> = {
    succeeded: 0,
    retrying: 0,
    failed: 0,
  };

  private timer: NodeJS.Timeout | null = null;

  private running: Promise<void> | null = null;

  private again = false;

  private stopped = true;

  private lastSweep = 0;

  private lastPrune = 0;

  private failing = false;

  /** The last fan-out stopped at its round's end: more events may wait for it. */
  private fanOutBehind = false;

  private readonly now: () => number;

  constructor(private readonly options: EventsRuntimeOptions) {
    this.now = options.now ?? Date.now;
    this.tail = new EventTail(this.now);
    this.worker = new DeliveryWorker({
      owner: `gateway@${os.hostname()}:${process.pid}/${randomUUID().slice(0, 8)}`,
      retryScheduleMs: options.config.webhookRetryScheduleMs,
      timeoutMs: options.config.webhookTimeoutMs,
      allowPrivate: options.config.webhookAllowPrivateUrls,
      concurrency: CONCURRENCY,
      busy: options.busy,
      now: this.now,
      onAttempt: (report) => {
        this.counts[report.outcome] += 1;
        for (const listener of this.attemptListeners) listener(report);
      },
    });
  }

  /** Starts polling; the outbox is read from its end as it is now. */
  async start(): Promise<void> {
    await this.tail.start();
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops polling and waits for the poll and the deliveries under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
    await this.worker.close();
  }

  /** Runs a poll now rather than at the next interval (after a write on this instance). */
  nudge(): void {
    if (this.stopped) return;
    if (this.running) this.again = true;
    else this.schedule(0);
  }

  /** Calls `listener` with each batch of events read from the outbox; answers the function that stops it. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async outboxDepth(): Promise<{ events: number; deliveries: number }> {
    const [events, deliveries] = await Promise.all([
      EventModel.countDocuments({ fanout: 'pending', seq: trusted({ $ne: null }) }),
      DeliveryModel.countDocuments({ status: trusted({ $in: ['pending', 'sending'] }) }),
    ]);
    return { events, deliveries };
  }

  attempts(): Readonly<Record<AttemptReport['outcome'], number>> {
    return { ...this.counts };
  }

  onAttempt(listener: (report: AttemptReport) => void): () => void {
    this.attemptListeners.add(listener);
    return () => this.attemptListeners.delete(listener);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.poll().finally(() => {
        this.running = null;
        const soon = this.again;
        this.again = false;
        this.schedule(soon ? 0 : this.options.config.eventsPollMs);
      });
    }, delayMs);
    this.timer.unref();
  }

  /**
   * Fans out every event not fanned out yet; while the instance answers requests, only a few per
   * poll (the rest at the next polls), as the deliveries themselves (delivery-worker.ts).
   */
  private async fanOutAll(): Promise<void> {
    for (;;) {
      const round = this.options.busy() ? BUSY_FAN_OUT_ROUND : FAN_OUT_ROUND;
      const done = await fanOut(new Date(this.now()), round);
      this.fanOutBehind = done === round;
      if (done < round || round === BUSY_FAN_OUT_ROUND) return;
    }
  }

  private async poll(): Promise<void> {
    try {
      const now = this.now();
      const sweep = now - this.lastSweep >= SWEEP_MS;
      if (sweep) {
        this.lastSweep = now;
        await sweepOutbox(this.options.connection, now);
      }
      await publishSnapshotEvents(this.options.derive);
      const events = await this.tail.read();
      if (events.length > 0) for (const listener of this.listeners) listener(events);
      if (events.length > 0 || sweep || this.fanOutBehind) await this.fanOutAll();
      await this.worker.run();
      if (now - this.lastPrune >= PRUNE_MS) {
        this.lastPrune = now;
        await pruneEvents(this.options.config.eventRetentionDays, now);
      }
      if (this.failing) this.options.logger.info('events: the outbox is read again');
      this.failing = false;
    } catch (error) {
      // The database is away, most likely: the next poll tries again; said once per outage.
      if (!this.failing)
        this.options.logger.warn({ err: error }, 'events: reading the outbox failed; retrying');
      this.failing = true;
    }
  }
}
