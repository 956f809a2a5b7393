import DataLoader from 'dataloader';
import { trusted, type AnyBulkWriteOperation, type UpdateQuery } from 'mongoose';
import type { Principal } from '../../auth/principal';
import { Role } from '../../auth/role';
import { EventModel, type EventDoc } from '../../models/event.model';
import { MemberModel, type MemberDoc } from '../../models/member.model';
import {
  DeliveryModel,
  type DeliveryAttempt,
  type DeliveryDoc,
} from '../../models/webhook-delivery.model';
import { WebhookModel, type WebhookDoc } from '../../models/webhook.model';
import { eventDataFor } from '../visibility';
import { postWebhook, WebhookConnections, type PostOutcome } from './post-webhook';
import { signatureHeaders } from './sign';
import { EVENTS_POLL_COMMENT } from '../poll-comment';

/** What a finished attempt did, for the metrics (event-metrics.ts). */
export interface AttemptReport {
  outcome: 'succeeded' | 'retrying' | 'failed';
  /** Seconds the attempt took. */
  attemptSeconds: number;
  /** Seconds from the event's publication to its successful delivery (succeeded only). */
  latencySeconds: number | null;
}

export interface DeliveryWorkerOptions {
  /** This instance's name on the leases it takes. */
  owner: string;
  /** WEBHOOK_RETRY_SCHEDULE in ms: the delay before each retry. */
  retryScheduleMs: readonly number[];
  timeoutMs: number;
  allowPrivate: boolean;
  /** Deliveries this instance sends at once. */
  concurrency: number;
  /**
   * Whether the instance is answering requests now: a backlog is then worked through only at the
   * runs its owner asks for (each poll), not batch after batch, so that requests keep the CPU.
   */
  busy: () => boolean;
  onAttempt?: (report: AttemptReport) => void;
  now?: () => number;
}

/**
 * A lease lasts twice the longest attempt and this much more: another instance takes a delivery
 * over only when its holder is gone (or stalled that long), not while it waits for an answer.
 */
const LEASE_MARGIN_MS = 10_000;

/** Deliveries claimed at once while the instance answers requests. */
const BUSY_BATCH = 4;

/** The condition a delivery is due on: waiting and its time come, or held by a lease that ran out. */
function dueFilter(now: Date): Record<string, unknown> {
  return {
    $or: [
      { status: 'pending', nextAttemptAt: trusted({ $lte: now }) },
      { status: 'sending', leaseUntil: trusted({ $lte: now }) },
    ],
  };
}

/** What the deliveries of one claim are sent with: their webhooks, events and owners, read once. */
interface ClaimContext {
  webhooks: Map<string, WebhookDoc>;
  events: Map<string, EventDoc>;
  members: Map<string, MemberDoc>;
}

const unique = (values: Iterable<string>): string[] => [...new Set(values)];

/**
 * Sends due webhook deliveries, a few at a time. Deliveries are claimed in batches with a lease
 * (one update of every due delivery found, marked with a claim of this instance's own; of several
 * instances, each gets the deliveries its claim marked), their webhooks, events and owners are read
 * once per claim, each is sent, and its attempt recorded under the same lease; attempts that end
 * in the same turn of the event loop are written together in one command. An instance that dies while
 * sending leaves the lease to run out; another instance then sends it again: a crash delays a
 * delivery, never loses it, and a delivery is sent twice only when its instance died (or stalled
 * past the lease) before recording the attempt. Receivers de-duplicate by `webhook-id` for that
 * case.
 */
export class DeliveryWorker {
  private readonly inFlight = new Set<Promise<void>>();

  /** The last claim filled every free slot: more may be waiting. */
  private backlog = false;

  private claiming: Promise<number> | null = null;

  private draining = false;

  private claims = 0;

  /**
   * The attempts' updates, written as they come in one command per turn of the event loop
   * (dataloader's batching, nothing cached): attempts ending together cost one write.
   */
  private readonly records = new DataLoader<AnyBulkWriteOperation<DeliveryDoc>, void>(
    async (operations) => {
      await DeliveryModel.bulkWrite([...operations], { ordered: false });
      return operations.map(() => undefined);
    },
    { cache: false, batchScheduleFn: (write) => setImmediate(write) },
  );

  private readonly connections: WebhookConnections;

  private readonly now: () => number;

  constructor(private readonly options: DeliveryWorkerOptions) {
    this.now = options.now ?? Date.now;
    this.connections = new WebhookConnections(options.concurrency);
  }

  private get leaseMs(): number {
    return 2 * this.options.timeoutMs + LEASE_MARGIN_MS;
  }

  /** Claims and starts sending due deliveries, up to the free slots; answers how many it started. */
  async run(): Promise<number> {
    const free = this.options.concurrency - this.inFlight.size;
    if (free <= 0 || this.draining || this.claiming) return 0;
    // While requests are being answered, a few deliveries at a time: they keep moving, and the
    // requests keep the CPU.
    const slots = this.options.busy() ? Math.min(free, BUSY_BATCH) : free;
    this.claiming = this.start(slots).finally(() => {
      this.claiming = null;
    });
    return this.claiming;
  }

  private async start(free: number): Promise<number> {
    const { due, claimed } = await this.claim(free);
    this.backlog = due >= free;
    if (claimed.length === 0) return 0;
    const context = await this.contextOf(claimed);
    for (const delivery of claimed) {
      const sending = this.send(delivery, context).catch(() => undefined);
      this.inFlight.add(sending);
      void sending.finally(() => {
        this.inFlight.delete(sending);
        this.continue();
      });
    }
    return claimed.length;
  }

  /** Resolves once the deliveries being sent are done and recorded, taking no new one meanwhile. */
  async drain(): Promise<void> {
    this.draining = true;
    await this.claiming?.catch(() => undefined);
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
    this.draining = false;
  }

  /** Drains, then closes the connections kept to the endpoints. */
  async close(): Promise<void> {
    await this.drain();
    this.connections.close();
  }

  /**
   * A slot is free and more is due: the next batch is claimed now rather than at the next poll, so
   * a backlog drains at the pace of the receivers, not of EVENTS_POLL_MS; but only once the slots of
   * this batch are all free (one claim per batch, not per delivery), after the event loop's pending
   * I/O (a request's), and not while requests are being answered.
   */
  private continue(): void {
    if (!this.backlog || this.inFlight.size > 0) return;
    setImmediate(() => {
      if (this.options.busy()) return;
      this.run().catch(() => undefined);
    });
  }

  /**
   * Leases up to `count` due deliveries to this instance, oldest due first: their ids read, then
   * one update of those still due marks them with a claim of its own, which reads them back.
   */
  private async claim(count: number): Promise<{ due: number; claimed: DeliveryDoc[] }> {
    const now = new Date(this.now());
    const due = await DeliveryModel.find(dueFilter(now), { _id: 1 })
      .sort({ nextAttemptAt: 1 })
      .limit(count)
      .comment(EVENTS_POLL_COMMENT)
      .lean<Array<{ _id: string }>>();
    if (due.length === 0) return { due: 0, claimed: [] };
    this.claims += 1;
    const lease = `${this.options.owner}#${this.claims}`;
    const ids = due.map((d) => d._id);
    const { modifiedCount } = await DeliveryModel.updateMany(
      { _id: trusted({ $in: ids }), ...dueFilter(now) },
      {
        $set: {
          status: 'sending',
          leaseOwner: lease,
          leaseUntil: new Date(this.now() + this.leaseMs),
        },
      },
    );
    const claimed =
      modifiedCount === 0
        ? []
        : await DeliveryModel.find({ _id: trusted({ $in: ids }), leaseOwner: lease }).lean<
            DeliveryDoc[]
          >();
    return { due: due.length, claimed };
  }

  /** The webhooks, events and owners of `deliveries`, each read once. */
  private async contextOf(deliveries: readonly DeliveryDoc[]): Promise<ClaimContext> {
    const [webhooks, events] = await Promise.all([
      WebhookModel.find({
        _id: trusted({ $in: unique(deliveries.map((d) => d.webhookId)) }),
      }).lean<WebhookDoc[]>(),
      EventModel.find({
        _id: trusted({ $in: unique(deliveries.map((d) => d.eventId)) }),
      }).lean<EventDoc[]>(),
    ]);
    const memberIds = unique(
      webhooks.flatMap((w) => (w.owner.memberId === null ? [] : [w.owner.memberId])),
    );
    const members =
      memberIds.length === 0
        ? []
        : await MemberModel.find({ _id: trusted({ $in: memberIds }) }).lean<MemberDoc[]>();
    return {
      webhooks: new Map(webhooks.map((w) => [w._id, w])),
      events: new Map(events.map((e) => [e._id, e])),
      members: new Map(members.map((m) => [m._id, m])),
    };
  }

  private async send(delivery: DeliveryDoc, context: ClaimContext): Promise<void> {
    const webhook = context.webhooks.get(delivery.webhookId);
    const event = context.events.get(delivery.eventId);
    if (!webhook || !webhook.enabled)
      return this.finish(delivery, 'skipped', null, 'the webhook was disabled or deleted');
    if (!event) return this.finish(delivery, 'failed', null, 'the event is no longer kept');
    const data = eventDataFor(ownerPrincipal(webhook, context.members), event);
    if (data === null)
      return this.finish(delivery, 'skipped', null, "not visible to the webhook's owner");
    const body = JSON.stringify({ type: event.type, timestamp: event.at.toISOString(), data });
    const secrets = [webhook.secret];
    if (webhook.previousSecret && (webhook.previousSecretUntil?.getTime() ?? 0) > this.now())
      secrets.push(webhook.previousSecret);
    const outcome = await postWebhook({
      url: webhook.url,
      headers: signatureHeaders(secrets, event._id, new Date(this.now()), body),
      body,
      timeoutMs: this.options.timeoutMs,
      allowPrivate: this.options.allowPrivate,
      connections: this.connections,
    });
    await this.record(delivery, webhook, event, outcome);
  }

  private async record(
    delivery: DeliveryDoc,
    webhook: WebhookDoc,
    event: EventDoc,
    outcome: PostOutcome,
  ): Promise<void> {
    const now = new Date(this.now());
    const attempt: DeliveryAttempt = {
      at: new Date(now.getTime() - outcome.durationMs),
      responseStatus: outcome.status,
      error: outcome.error,
      durationMs: outcome.durationMs,
    };
    const report = (kind: AttemptReport['outcome']) =>
      this.options.onAttempt?.({
        outcome: kind,
        attemptSeconds: outcome.durationMs / 1000,
        latencySeconds:
          kind === 'succeeded'
            ? (now.getTime() - (event.publishedAt ?? event.at).getTime()) / 1000
            : null,
      });
    if (outcome.error === null) {
      report('succeeded');
      return this.finish(delivery, 'succeeded', attempt, null);
    }
    if (outcome.status === 410) {
      report('failed');
      await this.finish(delivery, 'failed', attempt, null);
      return disableWebhook(
        webhook._id,
        `the endpoint answered 410 Gone at ${now.toISOString()}`,
        now,
      );
    }
    const made = delivery.attempts.length + 1 - (delivery.scheduleStart ?? 0);
    const schedule = this.options.retryScheduleMs;
    if (made > schedule.length) {
      report('failed');
      await this.finish(delivery, 'failed', attempt, null);
      return disableWebhook(
        webhook._id,
        `delivery ${delivery._id} failed ${made} times (last: ${outcome.error}) at ${now.toISOString()}`,
        now,
      );
    }
    report('retrying');
    await this.write(delivery, {
      $set: {
        status: 'pending',
        nextAttemptAt: new Date(now.getTime() + schedule[made - 1]),
        leaseOwner: null,
        leaseUntil: null,
        attempts: [...delivery.attempts, attempt],
      },
    });
  }

  /** Ends a delivery under this instance's lease (a delivery whose lease was taken over is left to its new holder). */
  private async finish(
    delivery: DeliveryDoc,
    status: 'succeeded' | 'failed' | 'skipped',
    attempt: DeliveryAttempt | null,
    reason: string | null,
  ): Promise<void> {
    const now = new Date(this.now());
    const recorded: DeliveryAttempt | null =
      attempt ?? (reason ? { at: now, responseStatus: null, error: reason, durationMs: 0 } : null);
    await this.write(delivery, {
      $set: {
        status,
        finishedAt: now,
        nextAttemptAt: null,
        leaseOwner: null,
        leaseUntil: null,
        ...(recorded ? { attempts: [...delivery.attempts, recorded] } : {}),
      },
    });
  }

  /**
   * Applies `update` to `delivery` while this instance's lease on it holds, in one command with the
   * other updates of the same turn of the event loop; resolves once written. Under the lease no one
   * else changes the delivery, so an update sets its attempts whole, as read when claimed and one
   * more (a `$set`, which costs the store less than a `$push`).
   */
  private write(delivery: DeliveryDoc, update: UpdateQuery<DeliveryDoc>): Promise<void> {
    return this.records.load({
      updateOne: {
        filter: { _id: delivery._id, status: 'sending', leaseOwner: delivery.leaseOwner },
        update,
      },
    });
  }
}

/**
 * Disables a webhook and skips the deliveries still waiting for it (replay or re-enabling and a
 * manual retry send them later).
 */
export async function disableWebhook(webhookId: string, reason: string, now: Date): Promise<void> {
  await WebhookModel.updateOne(
    { _id: webhookId, enabled: true },
    { $set: { enabled: false, disabledReason: reason, disabledAt: now } },
  );
  await DeliveryModel.updateMany(
    { webhookId, status: 'pending' },
    { $set: { status: 'skipped', finishedAt: now, nextAttemptAt: null } },
  );
}

/**
 * Who a webhook's deliveries are read as: its owner with the role they have now (the bootstrap
 * admin token, which is no member, is always an admin); null when the owner is no longer a member.
 */
function ownerPrincipal(
  webhook: WebhookDoc,
  members: ReadonlyMap<string, MemberDoc>,
): Principal | null {
  const { owner } = webhook;
  if (owner.memberId === null)
    return { subject: owner.subject, role: Role.ADMIN, memberId: null, teamId: null };
  const member = members.get(owner.memberId);
  if (!member) return null;
  return { subject: member._id, role: member.role, memberId: member._id, teamId: member.teamId };
}
