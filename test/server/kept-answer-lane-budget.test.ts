import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RequestContext } from '../../src/context/request-context';
import type { DataAccess } from '../../src/data/data-access';
import { requestData, type RequestData } from '../../src/data/request-data';
import type { VersionView } from '../../src/data/scopes';
import { AnswerRecipes, type AnswerRecipe } from '../../src/rest/answer-recipes';
import { KeptAnswerLane } from '../../src/rest/kept-answer-lane';
import { RateLimiter } from '../../src/security/rate-limit/rate-limiter';
import type { RateLimitStore } from '../../src/security/rate-limit/rate-limit-store';
import { RequestBudget } from '../../src/security/request-budget';
import { createHttpServer } from '../../src/server/create-http-server';
import type { ContextBuilder } from '../../src/server/context-builder';

/**
 * With MONGODB_URI the kept-answer lane holds a request while the versions are read. Here the read
 * is in the test's hands (it may never come back, fail, or come back late), and fastify is a
 * listener that records what it was handed: the lane must hand a request on once its time budget
 * is spent, count that budget from the request's arrival when it hands on, and never answer a
 * request twice.
 */
const BUDGET_MS = 200;
const VIEW: VersionView = {
  versions: {
    settings: 1,
    members: 1,
    teams: 1,
    targets: 1,
    pipeline_snapshots: 1,
    crm_owner_links: 1,
    pruned_snapshots: 1,
  },
};

type ReadCallback = (error: unknown, data: RequestData | undefined) => void;

interface Harness {
  port: number;
  budget: RequestBudget;
  /** The version reads the lane is waiting for, oldest first. */
  reads: ReadCallback[];
  /** What the stand-in for fastify was handed, with when (ms after the request was sent). */
  handed: Array<{ url: string; at: number }>;
  /** Whether the caller's answer can be sent once the versions are known. */
  answerable: boolean;
  /** The lane's sendKept, as the test decides it. */
  sendKept: jest.SpyInstance;
  close(): Promise<void>;
}

let sentAt = 0;

async function startHarness(
  onHanded?: (
    request: http.IncomingMessage,
    response: http.ServerResponse,
    budget: RequestBudget,
  ) => void,
  limiter?: RateLimiter,
): Promise<Harness> {
  const budget = new RequestBudget(BUDGET_MS);
  const harness = {
    budget,
    reads: [] as ReadCallback[],
    handed: [] as Harness['handed'],
    answerable: false,
  } as Harness;
  const access = {
    countersInProcess: false,
    requestThen: (callback: ReadCallback) => harness.reads.push(callback),
  } as unknown as DataAccess;
  const contexts = {
    knowsCaller: (authorization: string | undefined) => authorization === 'Bearer known',
    buildNow: (_asked: unknown, data: RequestData | undefined) =>
      data === undefined
        ? undefined
        : ({ requestId: 'r', principal: { subject: 'm1' }, data } as unknown as RequestContext),
  } as unknown as ContextBuilder;
  const recipes = new AnswerRecipes();
  recipes.learn('/kept', { route: { authenticated: true } } as unknown as AnswerRecipe);
  const lane = new KeptAnswerLane({
    access,
    contexts,
    recipes,
    logger: { isLevelEnabled: () => false, info: () => undefined },
    budget,
    limiter,
  });
  // What the lane would send: decided by the test, as its kept answers would be.
  harness.sendKept = jest.spyOn(lane, 'sendKept').mockImplementation((_ctx, _request, response) => {
    if (!harness.answerable) return false;
    response.writeHead(200, { 'content-type': 'text/plain' }).end('from the lane');
    return true;
  });
  const fastify: http.RequestListener = (request, response) => {
    harness.handed.push({ url: request.url ?? '', at: Date.now() - sentAt });
    if (onHanded) onHanded(request, response, budget);
    else response.writeHead(200, { 'content-type': 'text/plain' }).end('from fastify');
  };
  const server = createHttpServer(fastify, {
    answerFirst: (request, response, rest) => lane.serve(request, response, rest),
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  harness.port = (server.address() as AddressInfo).port;
  harness.close = async () => {
    budget.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  return harness;
}

function get(
  harness: Harness,
  path: string,
  authorization = 'Bearer known',
): Promise<{ status: number; body: string; at: number }> {
  sentAt = Date.now();
  return new Promise((resolve, reject) => {
    http
      .get(
        { port: harness.port, host: '127.0.0.1', path, headers: { authorization }, agent: false },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk) => (body += chunk));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, body, at: Date.now() - sentAt }),
          );
        },
      )
      .on('error', reject);
  });
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('kept-answer lane: waiting for the versions within the request budget', () => {
  let harness: Harness | undefined;
  afterEach(async () => harness?.close());

  it('answers once the versions are read', async () => {
    harness = await startHarness();
    harness.answerable = true;
    const answer = get(harness, '/kept');
    await until(() => harness!.reads.length === 1);
    harness.reads[0](undefined, requestData(VIEW));
    expect(await answer).toMatchObject({ status: 200, body: 'from the lane' });
    expect(harness.handed).toEqual([]);
  });

  it('hands on at once what it cannot answer, or a read that failed', async () => {
    harness = await startHarness();
    const missed = get(harness, '/kept');
    await until(() => harness!.reads.length === 1);
    harness.reads[0](undefined, requestData(VIEW));
    expect(await missed).toMatchObject({ status: 200, body: 'from fastify' });
    const failed = get(harness, '/kept');
    await until(() => harness!.reads.length === 2);
    harness.reads[1](new Error('the database is away'), undefined);
    expect(await failed).toMatchObject({ status: 200, body: 'from fastify' });
    expect(harness.handed.map((h) => h.url)).toEqual(['/kept', '/kept']);
  });

  it('leaves to fastify at once a request it could not answer: an unknown URL, an unknown caller', async () => {
    harness = await startHarness();
    expect(await get(harness, '/never-answered')).toMatchObject({ body: 'from fastify' });
    expect(await get(harness, '/kept', 'Bearer unknown')).toMatchObject({ body: 'from fastify' });
    expect(harness.reads).toHaveLength(0);
  });

  it('does not hold a request whose rate limit is counted with I/O (Redis): fastify would read the versions again', async () => {
    // A store with no hitNow, as the Redis store: counting takes a round trip.
    const store = { hit: async () => ({ count: 1, resetMs: 60_000 }) } as unknown as RateLimitStore;
    harness = await startHarness(
      undefined,
      new RateLimiter({ limit: 10, windowSeconds: 60, store }),
    );
    harness.answerable = true;
    expect(await get(harness, '/kept')).toMatchObject({ body: 'from fastify' });
    expect(harness.reads).toHaveLength(0);
  });

  it('hands on a request whose read does not come back once its budget is spent, and answers it once', async () => {
    harness = await startHarness();
    harness.answerable = true;
    const late = await get(harness, '/kept');
    expect(late.body).toBe('from fastify');
    expect(harness.handed).toHaveLength(1);
    // The budget plus at most one sweep (a tenth of it), with room for a loaded machine.
    expect(harness.handed[0].at).toBeGreaterThanOrEqual(BUDGET_MS - 5);
    expect(harness.handed[0].at).toBeLessThan(BUDGET_MS * 1.1 + 100);
    // The read comes back after all: the request was answered, nothing more is sent or handed.
    harness.reads[0](undefined, requestData(VIEW));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(harness.handed).toHaveLength(1);
    expect(harness.sendKept).not.toHaveBeenCalled();
  });

  it('a request handed on keeps the deadline of its arrival', async () => {
    let lateAt = -1;
    // As fastify's request timeout does: watch the raw request, answer it when late.
    harness = await startHarness((request, response, budget) =>
      budget.watch(request, () => {
        lateAt = Date.now() - sentAt;
        response.writeHead(503).end('late');
      }),
    );
    const answer = get(harness, '/kept');
    await until(() => harness!.reads.length === 1);
    await new Promise((resolve) => setTimeout(resolve, BUDGET_MS / 2));
    // Back after half the budget, but nothing to answer with: handed to fastify, which hangs.
    harness.reads[0](undefined, requestData(VIEW));
    expect(await answer).toMatchObject({ status: 503, body: 'late' });
    expect(lateAt).toBeGreaterThanOrEqual(BUDGET_MS - 5);
    // Counted from the arrival: a budget counted from the hand-off would end after 1.5 of it.
    expect(lateAt).toBeLessThan(BUDGET_MS * 1.25);
  });
});
