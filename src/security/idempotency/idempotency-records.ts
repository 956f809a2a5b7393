import { randomUUID } from 'node:crypto';
import { trusted } from 'mongoose';
import type { Logger } from 'pino';
import { IdempotencyKeyInUseError, IdempotencyKeyReusedError } from '../../errors';
import {
  IdempotencyRecordModel,
  type IdempotencyRecordDoc,
  type KeptWriteAnswer,
} from '../../models/idempotency-record.model';
import { isDatabaseUnavailable } from '../../server/classify-error';
import { isDuplicateKeyError } from '../../services/duplicate-key';
import { keepAnswer, keptAnswer, type WriteAnswer } from './write-answer';
import { recordIdOf } from './idempotency-key';

/** How long a key is kept after its first use. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 3600_000;

/**
 * How long a running record holds without its instance renewing it (every third of it while the
 * request runs): after that, the instance is taken to have gone, and a retry runs the request.
 */
export const IDEMPOTENCY_LEASE_MS = 15_000;

/** Answers this instance could not write to their records (the database away), kept meanwhile. */
const MAX_UNRECORDED_BYTES = 16 * 1024 * 1024;

/** A write that holds its key's record, from its claim to its answer. */
export interface Claim {
  id: string;
  attempt: string;
}

export type ClaimOutcome =
  { kind: 'claimed'; claim: Claim } | { kind: 'replay'; answer: WriteAnswer };

export interface ClaimRequest {
  /** The caller's subject: keys are per caller. */
  caller: string;
  key: string;
  fingerprint: string;
  /** `POST /teams`, for messages. */
  request: string;
}

interface Running {
  attempt: string;
  fingerprint: string;
  request: string;
  startedAt: Date;
}

interface Unrecorded extends Running {
  answer: KeptWriteAnswer;
}

/**
 * The Idempotency-Key records of one gateway instance's requests (collection `idempotency_keys`):
 * a write claims its key before it runs and leaves its answer there once it has one; a retry with
 * the same key and request then gets that answer again, 409 while the first still runs, 422 with
 * another request. Owned by the app: the requests it is running (to tell them from requests an
 * instance stopped running), and the answers it could not record while the database was away.
 */
export class IdempotencyRecords {
  private readonly holder = randomUUID();
  private readonly running = new Map<string, Running>();
  private readonly unrecorded = new Map<string, Unrecorded>();
  private unrecordedBytes = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly log: Logger) {
    this.timer = setInterval(() => void this.tend(), IDEMPOTENCY_LEASE_MS / 3);
    this.timer.unref();
  }

  /**
   * Takes the key for this request, or says what the key already stands for: its answer
   * (replay), or a refusal (409 while it runs, 422 for another request). A running record is
   * taken over when the attempt holding it can no longer be running: this instance's, and not
   * among its running requests, or another instance's that stopped renewing it. Errors of the
   * database pass through: nothing has run.
   */
  async claim(request: ClaimRequest): Promise<ClaimOutcome> {
    const id = recordIdOf(request.caller, request.key);
    const known = this.running.get(id) ?? this.unrecorded.get(id);
    if (known) {
      if (known.fingerprint !== request.fingerprint)
        throw new IdempotencyKeyReusedError(request.request, known.request, known.startedAt);
      const unrecorded = this.unrecorded.get(id);
      if (unrecorded) return { kind: 'replay', answer: await keptAnswer(unrecorded.answer) };
      throw new IdempotencyKeyInUseError(known.request, known.startedAt);
    }
    const startedAt = new Date();
    const attempt = randomUUID();
    // Before the first await: a second request with this key meanwhile is refused at once.
    this.running.set(id, {
      attempt,
      fingerprint: request.fingerprint,
      request: request.request,
      startedAt,
    });
    try {
      for (let round = 0; round < 3; round += 1) {
        if (await this.insert(id, attempt, request, startedAt))
          return { kind: 'claimed', claim: { id, attempt } };
        const found = await IdempotencyRecordModel.findById(id).lean<IdempotencyRecordDoc>();
        if (!found) continue;
        if (found.expiresAt.getTime() <= startedAt.getTime()) {
          // Past its day, before the TTL monitor's pass: the key is new again.
          await IdempotencyRecordModel.deleteOne({ _id: id, attempt: found.attempt });
          continue;
        }
        if (found.fingerprint !== request.fingerprint)
          throw new IdempotencyKeyReusedError(request.request, found.request, found.startedAt);
        if (found.state === 'done' && found.answer) {
          this.running.delete(id);
          return { kind: 'replay', answer: await keptAnswer(found.answer) };
        }
        const abandoned =
          found.holder === this.holder || found.lockedUntil.getTime() <= startedAt.getTime();
        if (!abandoned) throw new IdempotencyKeyInUseError(found.request, found.startedAt);
        const takenOver = await IdempotencyRecordModel.updateOne(
          { _id: id, state: 'running', attempt: found.attempt },
          { $set: { attempt, holder: this.holder, lockedUntil: this.leaseEnd() } },
        );
        if (takenOver.matchedCount === 1) {
          this.log.info(
            { request: found.request },
            'idempotency key taken over from a stopped attempt',
          );
          return { kind: 'claimed', claim: { id, attempt } };
        }
      }
      throw new Error(`idempotency key record ${id} kept changing under its claim`);
    } catch (error) {
      this.running.delete(id);
      throw error;
    }
  }

  /**
   * Leaves the request's answer on its record for retries. While the database is away the answer
   * is kept here and written when it returns, so a retry on this instance gets it meanwhile.
   * Never throws: the answer goes to the client whether or not it could be recorded.
   */
  async complete(
    claim: Claim,
    answer: WriteAnswer,
    oversize: (status: number, bytes: number) => WriteAnswer,
  ): Promise<void> {
    const kept = await keepAnswer(answer, oversize);
    const running = this.running.get(claim.id);
    try {
      await this.record(claim, kept);
    } catch (error) {
      // The request itself succeeded or failed as it did: its answer goes out either way.
      if (!isDatabaseUnavailable(error))
        this.log.warn({ err: error }, 'answer not recorded for its idempotency key');
      else if (running?.attempt === claim.attempt)
        this.keepUnrecorded(claim.id, { ...running, answer: kept });
    } finally {
      if (this.running.get(claim.id)?.attempt === claim.attempt) this.running.delete(claim.id);
    }
  }

  /**
   * Gives the key back without an answer (the request failed on the gateway's side: a 5xx): a
   * retry runs the request again. Should the database be away, the record stays running, and is
   * taken over as one this instance no longer runs.
   */
  async release(claim: Claim): Promise<void> {
    if (this.running.get(claim.id)?.attempt === claim.attempt) this.running.delete(claim.id);
    await IdempotencyRecordModel.deleteOne({ _id: claim.id, attempt: claim.attempt }).catch(
      (error: unknown) => {
        if (!isDatabaseUnavailable(error))
          this.log.warn({ err: error }, 'idempotency key not released');
      },
    );
  }

  /** Stops renewing (the app closes). */
  close(): void {
    clearInterval(this.timer);
  }

  private leaseEnd(): Date {
    return new Date(Date.now() + IDEMPOTENCY_LEASE_MS);
  }

  /** Inserts the running record; false when the key has one already. */
  private async insert(
    id: string,
    attempt: string,
    request: ClaimRequest,
    startedAt: Date,
  ): Promise<boolean> {
    try {
      await IdempotencyRecordModel.create({
        _id: id,
        caller: request.caller,
        fingerprint: request.fingerprint,
        request: request.request,
        state: 'running',
        attempt,
        holder: this.holder,
        lockedUntil: this.leaseEnd(),
        startedAt,
        answer: null,
        expiresAt: new Date(startedAt.getTime() + IDEMPOTENCY_KEY_TTL_MS),
      });
      return true;
    } catch (error) {
      if (isDuplicateKeyError(error)) return false;
      throw error;
    }
  }

  private async record(claim: Claim, answer: KeptWriteAnswer): Promise<void> {
    const done = await IdempotencyRecordModel.updateOne(
      { _id: claim.id, attempt: claim.attempt },
      { $set: { state: 'done', answer } },
    );
    if (done.matchedCount === 0)
      this.log.warn({ id: claim.id }, 'idempotency key taken over before its answer was recorded');
  }

  private keepUnrecorded(id: string, entry: Unrecorded): void {
    this.unrecorded.set(id, entry);
    this.unrecordedBytes += entry.answer.body.length;
    // Oldest first out: its key then runs its request again on a retry, as after a restart.
    for (const [oldest, { answer }] of this.unrecorded) {
      if (this.unrecordedBytes <= MAX_UNRECORDED_BYTES) break;
      this.unrecorded.delete(oldest);
      this.unrecordedBytes -= answer.body.length;
    }
  }

  /** Every third of a lease: renews the running records, and writes the answers kept here. */
  private async tend(): Promise<void> {
    try {
      if (this.running.size > 0) {
        await IdempotencyRecordModel.updateMany(
          { _id: trusted({ $in: [...this.running.keys()] }), holder: this.holder },
          { $set: { lockedUntil: this.leaseEnd() } },
        );
      }
      for (const [id, entry] of this.unrecorded) {
        await this.record({ id, attempt: entry.attempt }, entry.answer);
        this.unrecorded.delete(id);
        this.unrecordedBytes -= entry.answer.body.length;
      }
    } catch (error) {
      if (!isDatabaseUnavailable(error))
        this.log.warn({ err: error }, 'idempotency keys not tended');
    }
  }
}
