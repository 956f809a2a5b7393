import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { RequestContext } from '../../context/request-context';
import {
  BadUserInputError,
  ServiceUnavailableError,
  WriteOutcomeUnknownError,
  type ErrorWithCode,
} from '../../errors';
import { isDatabaseUnavailable } from '../../server/classify-error';
import {
  describeRequest,
  fingerprintOf,
  IDEMPOTENCY_KEY_HEADER,
  readIdempotencyKey,
  REPLAYED_HEADER,
} from './idempotency-key';
import { IdempotencyRecords, type Claim, type ClaimRequest } from './idempotency-records';
import type { WriteAnswer } from './write-answer';

/** Where a write is: the time-out and the error edge answer by it. */
export type WritePhase = 'claiming' | 'running' | 'settled';

/** One write request: whether it came with a key, and how far it got. */
export interface WriteAttempt {
  keyed: boolean;
  phase: WritePhase;
}

export interface IdempotencyOptions {
  log: Logger;
  /** The answer the error edge gives for `error`: what a retry is replayed when it is not a 5xx. */
  errorAnswer(error: unknown, request: FastifyRequest): WriteAnswer;
}

/** A claim's outcome for one write: the claim to settle, or the answer the key already has. */
export type KeyedStart = { claim: Claim | null; replay?: undefined } | { replay: WriteAnswer };

/**
 * Writes that answer what happened (one per app). Every REST write (POST, PATCH, DELETE) and every
 * GraphQL mutation goes through it: with an Idempotency-Key, the key's record is claimed before
 * the write runs and holds its answer after (IdempotencyRecords); with or without one, a write
 * whose outcome is not known (it outlived REQUEST_TIMEOUT_MS and carries on, or the database
 * failed under it) answers 503 saying so, never "try again shortly". Reads are not touched.
 */
export class Idempotency {
  readonly records: IdempotencyRecords;
  private readonly attempts = new WeakMap<FastifyRequest, WriteAttempt>();
  private readonly requests = new WeakMap<object, FastifyRequest>();
  private readonly late = new WeakSet<FastifyRequest>();

  constructor(private readonly options: IdempotencyOptions) {
    this.records = new IdempotencyRecords(options.log);
  }

  /**
   * Runs one REST write: claims its key, replays the key's answer when it has one, else runs
   * `compute` and records what it answered (not a 5xx: that gives the key back). A write the
   * time-out answered before it started does not start; one that finishes after it is recorded
   * for the retry.
   */
  async runRest(
    request: FastifyRequest,
    reply: FastifyReply,
    options: { refusesKey?: string },
    compute: () => Promise<WriteAnswer>,
  ): Promise<FastifyReply> {
    const key = readIdempotencyKey(request.headers[IDEMPOTENCY_KEY_HEADER]);
    const attempt = this.begin(request, key !== null);
    if (key !== null && options.refusesKey !== undefined)
      throw refusedKey(describeRequest(request.method, request.url), options.refusesKey);
    const start =
      key === null || request.principal === null
        ? { claim: null }
        : await this.start({
            caller: request.principal.subject,
            key,
            fingerprint: fingerprintOf({
              method: request.method,
              url: request.url,
              body: request.body,
            }),
            request: describeRequest(request.method, request.url),
          });
    if (start.replay) return send(reply, start.replay, true);
    const { claim } = start;
    if (reply.sent) {
      // The time-out answered while the key was being claimed, saying nothing was done: so be it.
      if (claim) await this.records.release(claim);
      return reply;
    }
    attempt.phase = 'running';
    let answer: WriteAnswer;
    let failure: { error: unknown } | null = null;
    try {
      answer = await compute();
    } catch (error) {
      failure = { error };
      answer = this.options.errorAnswer(error, request);
    }
    attempt.phase = 'settled';
    if (claim) await this.settle(claim, answer);
    if (reply.sent) {
      // Answered by the time-out already: what happened is on the key's record for the retry.
      const late = { requestId: request.id, status: answer.status };
      if (answer.status >= 500)
        request.log.error({ ...late, err: failure?.error }, 'write failed after its time-out');
      else request.log.info(late, 'write finished after its time-out');
      return reply;
    }
    if (failure === null) return send(reply, answer, false);
    if (isDatabaseUnavailable(failure.error))
      throw new WriteOutcomeUnknownError({ kind: 'database' }, key !== null);
    throw failure.error;
  }

  /**
   * Claims a key; the database failing meanwhile is a plain 503: the write has not started, so
   * nothing was done and a retry is safe.
   */
  async start(request: ClaimRequest): Promise<KeyedStart> {
    try {
      const outcome = await this.records.claim(request);
      return outcome.kind === 'replay' ? { replay: outcome.answer } : { claim: outcome.claim };
    } catch (error) {
      if (isDatabaseUnavailable(error))
        throw new ServiceUnavailableError(
          'The database is unreachable; the write was not carried out: try again shortly',
        );
      throw error;
    }
  }

  /** Records `answer` for the claim's key, or gives the key back when it is a 5xx. */
  async settle(
    claim: Claim,
    answer: WriteAnswer,
    oversize: (status: number, bytes: number) => WriteAnswer = oversizeEnvelope,
  ): Promise<void> {
    if (answer.status >= 500) await this.records.release(claim);
    else await this.records.complete(claim, answer, oversize);
  }

  /** Marks `request` as a write (a REST write, or a GraphQL mutation once Apollo has resolved it). */
  begin(request: FastifyRequest, keyed: boolean): WriteAttempt {
    const attempt: WriteAttempt = { keyed, phase: 'claiming' };
    this.attempts.set(request, attempt);
    return attempt;
  }

  /**
   * Ties a GraphQL context to its HTTP request, for the mutation plugin. Apollo hands plugins a
   * shallow copy of the context, so the tie is the request's data, which the copy shares.
   */
  link(context: RequestContext, request: FastifyRequest): void {
    this.requests.set(context.data, request);
  }

  /** The HTTP request of a GraphQL context (undefined when its context failed). */
  requestOf(context: RequestContext): FastifyRequest | undefined {
    return this.requests.get(context.data);
  }

  /**
   * What the request time-out answers instead of its read's 503: for a write that has started
   * and carries on, a 503 saying its outcome is not known yet; null for anything else.
   */
  lateAnswer(request: FastifyRequest, timeoutMs: number): ErrorWithCode | null {
    this.late.add(request);
    const attempt = this.attempts.get(request);
    if (attempt?.phase !== 'running') return null;
    return new WriteOutcomeUnknownError({ kind: 'time-out', timeoutMs }, attempt.keyed);
  }

  /** True once the time-out has answered `request`: a write not yet started must not start. */
  answeredLate(request: FastifyRequest): boolean {
    return this.late.has(request);
  }

  close(): void {
    this.records.close();
  }
}

/** 400 for a key sent to a write whose answer must not be kept. */
export function refusedKey(request: string, why: string): BadUserInputError {
  const message = `${request} does not take an Idempotency-Key: ${why}`;
  return new BadUserInputError(message, [{ field: 'Idempotency-Key', message }]);
}

function send(reply: FastifyReply, answer: WriteAnswer, replayed: boolean): FastifyReply {
  if (replayed) reply.header(REPLAYED_HEADER, 'true');
  return reply.code(answer.status).type(answer.contentType).send(answer.body);
}

/** What a REST replay of an answer too large to keep says instead. */
function oversizeEnvelope(status: number, bytes: number): WriteAnswer {
  const body = {
    message: `The request was carried out (status ${status}); its answer, ${bytes} bytes, was too large to keep for replays`,
    success: status < 400,
    statusCode: status,
  };
  return {
    status,
    contentType: 'application/json; charset=utf-8',
    body: Buffer.from(JSON.stringify(body)),
  };
}
