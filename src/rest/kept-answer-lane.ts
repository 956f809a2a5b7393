import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { Authenticator } from '../auth/authenticator';
import type { Principal } from '../auth/principal';
import type { DataAccess } from '../data/data-access';
import { trackReads } from '../data/read-tracking';
import type { RateLimiter } from '../security/rate-limit/rate-limiter';
import { logRequest } from '../security/request-log';
import { DEFAULT_HEADERS } from '../security/security-headers';
import { REQUEST_ID_HEADER, requestIdFor } from '../server/request-id';
import type { ContextBuilder } from '../server/context-builder';
import type { AnswerRecipes } from './answer-recipes';
import { JSON_TYPE, keptAnswerKey, type KeptRestAnswer } from './kept-answer';

export interface KeptAnswerLaneOptions {
  access: DataAccess;
  authenticator: Authenticator;
  contexts: ContextBuilder;
  recipes: AnswerRecipes;
  /** The rate limit, when one is set (RATE_LIMIT > 0). */
  limiter?: RateLimiter;
  logger: Pick<Logger, 'isLevelEnabled' | 'info'>;
}

/**
 * Sends a REST answer as soon as a request arrives, before fastify makes its request and reply,
 * runs its hooks and routes: for an answer kept or computed from memory that work was most of the
 * gateway's own cost per request. It answers only what it can answer exactly as the full way
 * would, and only without waiting; anything else it leaves untouched to fastify:
 *
 * - a GET without a body, whose caller is known from memory (a member token verified before,
 *   whose member is cached under the current versions: Authenticator.authenticateNow) and whose
 *   answer is kept for that caller and raw URL and still valid (AnswerCache), or can be computed
 *   again from memory: a URL answered before (its AnswerRecipe: route, valid input, serialiser)
 *   whose route computes without waiting (`handleNow`) and answers 200; that answer is kept, as
 *   the full way keeps it;
 * - the versions as of now known without waiting, which is the case with the embedded store in
 *   this process (with `MONGODB_URI` they take a read, so every request goes the full way);
 * - within the rate limit, counted where the store answers without I/O (the memory store; with
 *   Redis every request goes the full way). A request over the limit is left to fastify, which
 *   counts it again and answers the 429: the answer is the same as if counted once, since an
 *   exceeded count only ever reads as zero remaining.
 *
 * What the full way adds to every answer, this adds too: the security headers, the request id
 * (the client's when sane), the rate-limit fields and the request log line.
 */
export class KeptAnswerLane {
  constructor(private readonly options: KeptAnswerLaneOptions) {}

  /** Answers `request` and returns true, or returns false having sent and counted nothing. */
  serve(request: IncomingMessage, response: ServerResponse): boolean {
    const { access, authenticator, limiter, logger } = this.options;
    const started = performance.now();
    const { headers } = request;
    if (request.method !== 'GET' || headers['content-length'] !== undefined || headers['transfer-encoding'] !== undefined || headers['content-type'] !== undefined) return false;
    const data = access.requestNow();
    if (data === undefined) return false;
    const principal = authenticator.authenticateNow(headers.authorization, data);
    if (principal === undefined) return false;
    const url = request.url ?? '/';
    const requestId = requestIdFor(request);
    const kept = access.restAnswers.get(keptAnswerKey(principal, url), data.view!) ?? this.computeNow(request, url, principal, requestId);
    if (kept === undefined) return false;
    const fields: OutgoingHttpHeaders = {};
    for (const name in DEFAULT_HEADERS) fields[name] = DEFAULT_HEADERS[name as keyof typeof DEFAULT_HEADERS];
    fields[REQUEST_ID_HEADER] = requestId;
    if (limiter !== undefined && limiter.limits(url)) {
      const count = limiter.hitNow(limiter.keyOf(principal.subject, undefined));
      if (count === undefined || limiter.exceeded(count) !== undefined) return false;
      const limit = limiter.fieldsOf(count);
      fields['ratelimit-policy'] = limit['ratelimit-policy'];
      fields.ratelimit = limit.ratelimit;
    }
    fields['content-type'] = JSON_TYPE;
    fields['content-length'] = kept.body.length;
    response.writeHead(kept.status, fields);
    response.end(kept.body);
    if (logger.isLevelEnabled('info')) {
      logRequest(logger, { requestId, method: 'GET', route: kept.route, status: kept.status, durationMs: performance.now() - started, subject: principal.subject });
    }
    return true;
  }

  /**
   * The answer of a URL answered before, computed again from memory and kept; undefined when its
   * route cannot (something to read, an error, a status other than 200: the full way answers).
   */
  private computeNow(request: IncomingMessage, url: string, principal: Principal, requestId: string): KeptRestAnswer | undefined {
    const recipe = this.options.recipes.get(url);
    const { route } = recipe ?? {};
    if (recipe === undefined || route?.handleNow === undefined || !route.authenticated) return undefined;
    const ctx = this.options.contexts.buildNow({ requestId, authorization: request.headers.authorization, authenticated: true });
    if (ctx === undefined || ctx.principal?.subject !== principal.subject) return undefined;
    try {
      const result = trackReads(ctx.data, () => route.handleNow!(ctx, recipe.input as object));
      if (result === undefined || (result.statusCode !== undefined && result.statusCode !== 200)) return undefined;
      const answer = { status: 200, body: Buffer.from(recipe.serialize(result)), route: route.path };
      const key = keptAnswerKey(ctx.principal, url);
      this.options.access.restAnswers.keep(key, answer, key.length + answer.body.length, ctx.data);
      return answer;
    } catch {
      return undefined; // the full way computes it again and answers the error as it does
    }
  }
}
