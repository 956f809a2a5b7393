import type {
  IncomingMessage,
  OutgoingHttpHeaders,
  RequestListener,
  ServerResponse,
} from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { RequestContext } from '../context/request-context';
import type { DataAccess } from '../data/data-access';
import type { RateLimiter } from '../security/rate-limit/rate-limiter';
import { logRequest } from '../security/request-log';
import { DEFAULT_HEADERS } from '../security/security-headers';
import { REQUEST_ID_HEADER, requestIdFor } from '../server/request-id';
import type { ContextBuilder } from '../server/context-builder';
import { answerNow, type AnswerRecipes } from './answer-recipes';
import { JSON_TYPE, keptAnswerKey, type KeptRestAnswer } from './kept-answer';

export interface KeptAnswerLaneOptions {
  access: DataAccess;
  /** Who is calling and the versions as of now, without waiting (ContextBuilder.buildNow). */
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
 * would; anything else goes to fastify untouched:
 *
 * - a GET without a body, whose caller is known from memory (a member token verified before,
 *   whose member is cached under the request's versions: Authenticator.authenticateNow) and whose
 *   answer is kept for that caller and raw URL and still valid (AnswerCache), or can be computed
 *   again from memory: a URL answered before (its AnswerRecipe: route, valid input, serialiser)
 *   whose route computes without waiting (`handleNow`) and answers 200; that answer is kept, as
 *   the full way keeps it;
 * - within the rate limit, counted where the store answers without I/O (the memory store; with
 *   Redis every request goes the full way). A request over the limit is left to fastify, which
 *   counts it again and answers the 429: the answer is the same as if counted once, since an
 *   exceeded count only ever reads as zero remaining.
 *
 * The versions: with the embedded store in this process they are known without waiting, and a
 * request is answered or passed on at once. With `MONGODB_URI` they take a read (VersionClock,
 * shared by the requests arriving in one turn of the event loop), so a request that may be
 * answered here (a caller known from memory, a URL answered before) waits for it, then is answered
 * or handed to fastify, which reads the versions again. While it waits it counts against the
 * request budget: at its end it is handed to fastify, which answers it late as usual.
 *
 * What the full way adds to every answer, this adds too: the security headers, the request id
 * (the client's when sane), the rate-limit fields and the request log line.
 */
export class KeptAnswerLane {
  constructor(private readonly options: KeptAnswerLaneOptions) {}

  /**
   * Answers `request` and returns true; or, with the versions in the database, takes it, returns
   * true, and later answers it or hands it to `rest` (fastify's handler); or returns false having
   * sent and counted nothing.
   */
  serve(request: IncomingMessage, response: ServerResponse, rest: RequestListener): boolean {
    const { access, contexts } = this.options;
    const started = performance.now();
    const { headers } = request;
    if (
      request.method !== 'GET' ||
      headers['content-length'] !== undefined ||
      headers['transfer-encoding'] !== undefined ||
      headers['content-type'] !== undefined
    )
      return false;
    const asked = {
      requestId: requestIdFor(request),
      authorization: headers.authorization,
      authenticated: true,
    };
    if (access.countersInProcess) {
      // Undefined unless the caller is known from memory.
      const ctx = contexts.buildNow(asked);
      return ctx !== undefined && this.sendKept(ctx, request, response, started);
    }
    const url = request.url ?? '/';
    const recipe = this.options.recipes.get(url);
    if (
      recipe === undefined ||
      !recipe.route.authenticated ||
      !contexts.knowsCaller(asked.authorization)
    )
      return false;
    // A rate limit counted with I/O (Redis) would send it to fastify after the wait, to read again.
    const { limiter } = this.options;
    if (limiter !== undefined && limiter.limits(url) && !limiter.countsNow) return false;
    let handed = false;
    const handOn = (): void => {
      if (handed) return;
      handed = true;
      rest(request, response);
    };
    access.requestThen((_error, data) => {
      // A failed read: the full way reads again and answers its error.
      if (handed || data === undefined) return handOn();
      let answered = false;
      try {
        const ctx = contexts.buildNow(asked, data);
        answered = ctx !== undefined && this.sendKept(ctx, request, response, started);
      } catch {
        // Nothing is sent unless answered: the full way answers whatever went wrong.
      }
      if (!answered) return handOn();
      handed = true;
    });
    return true;
  }

  /** Sends the caller's answer kept or computed from memory and returns true; or returns false having sent nothing. */
  sendKept(
    ctx: RequestContext,
    request: IncomingMessage,
    response: ServerResponse,
    started: number,
  ): boolean {
    const { access, limiter, logger } = this.options;
    const principal = ctx.principal;
    if (!principal) return false;
    const url = request.url ?? '/';
    const key = keptAnswerKey(principal, url);
    const kept = access.restAnswers.get(key, ctx.data.view!) ?? this.computeNow(ctx, url, key);
    if (kept === undefined) return false;
    const fields: OutgoingHttpHeaders = {};
    for (const name in DEFAULT_HEADERS)
      fields[name] = DEFAULT_HEADERS[name as keyof typeof DEFAULT_HEADERS];
    fields[REQUEST_ID_HEADER] = ctx.requestId;
    if (limiter !== undefined && limiter.limits(url)) {
      const count = limiter.hitNow(limiter.keyOf(principal.subject, undefined));
      if (count === undefined || limiter.exceeded(count) !== undefined) return false;
      Object.assign(fields, limiter.fieldsOf(count));
    }
    fields['content-type'] = JSON_TYPE;
    fields['content-length'] = kept.body.length;
    response.writeHead(kept.status, fields);
    response.end(kept.body);
    if (logger.isLevelEnabled('info')) {
      logRequest(logger, {
        requestId: ctx.requestId,
        method: 'GET',
        route: kept.route,
        status: kept.status,
        durationMs: performance.now() - started,
        subject: principal.subject,
      });
    }
    return true;
  }

  /** The answer of a URL answered before, computed again from memory and kept (answerNow); undefined when it cannot be. */
  private computeNow(ctx: RequestContext, url: string, key: string): KeptRestAnswer | undefined {
    const recipe = this.options.recipes.get(url);
    // A public route answers every caller alike, under another key: the full way answers it.
    if (recipe === undefined || !recipe.route.authenticated) return undefined;
    try {
      return answerNow(recipe, ctx, key, this.options.access.restAnswers);
    } catch {
      return undefined; // the full way computes it again and answers the error as it does
    }
  }
}
