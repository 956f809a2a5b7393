import { trusted } from 'mongoose';
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
import { postWebhook, type PostOutcome } from './post-webhook';
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
  onAttempt?: (report: AttemptReport) => void;
  now?: () => number;
}

/**
 * A lease lasts twice the longest attempt and this much more: another instance takes a delivery
 * over only when its holder is gone (or stalled that long), not while it waits for an answer.
 */
const LEASE_MARGIN_MS = 10_000;

/** The condition a delivery is due on: waiting and its time come, or held by a lease that ran out. */
function dueFilter(now: Date): Record<string, unknown> {
  return {
    $or: [
      { status: 'pending', nextAttemptAt: trusted({ $lte: now }) },
      { status: 'sending', leaseUntil: trusted({ $lte: now }) },
    ],
  };
}

/**
 * Sends due webhook deliveries, a few at a time. Each is claimed with a lease first (one atomic
 * find-and-modify on the delivery: of several instances, one gets it), sent, and its attempt
 * recorded under the same lease. An instance that dies while sending leaves the lease to run
 * out; another instance then sends it again: a crash delays a delivery, never loses it, and a
 * delivery is sent twice only when its instance died (or stalled past the lease) before
 * recording the attempt. Receivers de-duplicate by `webhook-id` for that case.
 */
export class DeliveryWorker {
  private inFlight = new Set<Promise<void>>();

  /** The last run found at least as many due deliveries as it had slots: more may be waiting. */
  private backlog = false;

  private draining = false;

  private readonly now: () => number;

  constructor(private readonly options: DeliveryWorkerOptions) {
    this.now = options.now ?? Date.now;
  }

  private get leaseMs(): number {
    return 2 * this.options.timeoutMs + LEASE_MARGIN_MS;
  }

  /** Claims and starts sending due deliveries, up to the free slots; answers how many it started. */
  async run(): Promise<number> {
    const free = this.options.concurrency - this.inFlight.size;
    if (free <= 0 || this.draining) return 0;
    const now = new Date(this.now());
    const due = await DeliveryModel.find(dueFilter(now), { _id: 1 })
      .sort({ nextAttemptAt: 1 })
      .limit(free * 2)
      .comment(EVENTS_POLL_COMMENT)
      .lean<Array<{ _id: string }>>();
    this.backlog = due.length >= free;
    let started = 0;
    for (const { _id } of due) {
      if (started >= free) break;
      const claimed = await DeliveryModel.findOneAndUpdate(
        { _id, ...dueFilter(now) },
        {
          $set: {
            status: 'sending',
            leaseOwner: this.options.owner,
            leaseUntil: new Date(this.now() + this.leaseMs),
          },
        },
        { returnDocument: 'after' },
      ).lean<DeliveryDoc>();
      if (!claimed) continue;
      started += 1;
      const sending = this.send(claimed).catch(() => undefined);
      this.inFlight.add(sending);
      void sending.finally(() => {
        this.inFlight.delete(sending);
        // A slot is free and more is due: take the next now rather than at the next poll, so a
        // backlog drains at the pace of the receivers, not of EVENTS_POLL_MS.
        if (this.backlog) this.run().catch(() => undefined);
      });
    }
    return started;
  }

  /** Resolves once the deliveries being sent are done, taking no new one meanwhile. */
  async drain(): Promise<void> {
    this.draining = true;
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
    this.draining = false;
  }

  private async send(delivery: DeliveryDoc): Promise<void> {
    const [webhook, event] = await Promise.all([
      WebhookModel.findById(delivery.webhookId).lean<WebhookDoc>(),
      EventModel.findById(delivery.eventId).lean<EventDoc>(),
    ]);
    if (!webhook || !webhook.enabled)
      return this.finish(delivery, 'skipped', null, 'the webhook was disabled or deleted');
    if (!event) return this.finish(delivery, 'failed', null, 'the event is no longer kept');
    const data = eventDataFor(await ownerPrincipal(webhook), event);
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
    await DeliveryModel.updateOne(
      { _id: delivery._id, status: 'sending', leaseOwner: this.options.owner },
      {
        $set: {
          status: 'pending',
          nextAttemptAt: new Date(now.getTime() + schedule[made - 1]),
          leaseOwner: null,
          leaseUntil: null,
        },
        $push: { attempts: attempt },
      },
    );
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
    await DeliveryModel.updateOne(
      { _id: delivery._id, status: 'sending', leaseOwner: this.options.owner },
      {
        $set: {
          status,
          finishedAt: now,
          nextAttemptAt: null,
          leaseOwner: null,
          leaseUntil: null,
        },
        ...(recorded ? { $push: { attempts: recorded } } : {}),
      },
    );
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
async function ownerPrincipal(webhook: WebhookDoc): Promise<Principal | null> {
  const { owner } = webhook;
  if (owner.memberId === null)
    return { subject: owner.subject, role: Role.ADMIN, memberId: null, teamId: null };
  const member = await MemberModel.findById(owner.memberId).lean<MemberDoc>();
  if (!member) return null;
  return { subject: member._id, role: member.role, memberId: member._id, teamId: member.teamId };
}
