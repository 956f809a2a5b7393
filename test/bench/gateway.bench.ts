/**
 * Benchmark: the gateway's read paths against a bare node:http ceiling and a Mercurius +
 * graphql-jit reference, at the demo size and at 100k deals. Prints figures and writes them to
 * test/bench/results/gateway.json; asserts nothing beyond "every answer was a 200 and the
 * reference answers what the gateway answers". Run with `npm run bench` (flags after `--`).
 *
 * Fairness: every server under test runs in its own child process, alone under load (the others
 * idle); autocannon runs in this process, so load generation and serving compete for the two
 * cores the way a client on the same machine would. 10 connections, one autocannon thread.
 * The cases are measured in rounds, one after the other within each round, and each figure is
 * the median of its rounds (p99: the worst round): on a shared machine the load from elsewhere
 * changes from minute to minute, and interleaving spreads it over every case alike. Ratios are
 * taken within each round (cases seconds apart) and their median reported.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { isDeepStrictEqual } from 'node:util';
import autocannon from 'autocannon';
import type { GatewayAnswer, GatewayReady, GatewayRequest } from './gateway-server';
import { DASHBOARD_SOURCE_QUERY, toDashboardArrays } from './reference/dashboard-data';
import type { ReferenceMessage, ReferenceReady } from './reference/reference-messages';

const USAGE = `Usage: npm run bench -- [--duration S] [--warmup S] [--rounds N] [--connections N] [--sizes demo,100k] [--large-deals N]`;

/** The dashboard query every GraphQL case sends (the explorer's default query). */
export const DASHBOARD_QUERY = `query Dashboard {
  snapshot {
    id createdAt
    definitions {
      id label
      pipelines {
        id kind
        team { name }
        member { firstname lastname }
        metrics { definition { apiCodename } value unit }
      }
      stages { id label order isClosed probability }
    }
  }
}`;

const MEMBER_QUERY = `query Member($id: ID!, $year: Int) {
  member(id: $id) {
    id firstname lastname email role
    team { id name }
    targets(year: $year) { year currency period targets { period amount } }
  }
}`;

interface CaseResult {
  name: string;
  label: string;
  requests: number;
  reqPerSec: number;
  /** Median of the rounds. */
  p50Ms: number;
  /** The worst round's. */
  p99Ms: number;
  /** Requests per second of each round, in order. */
  rounds: number[];
  /** Database commands received during the measured run ÷ requests; null for servers without a database. */
  roundTripsPerRequest: number | null;
  commands?: Record<string, number>;
  /** Median over the rounds of this case's rate ÷ the bare server's in the same round. */
  ratioToBare?: number;
  /** The same against the Mercurius reference. */
  ratioToMercurius?: number;
}

interface SizeResult {
  size: string;
  deals: number;
  seedSeconds: number;
  pipelines: number;
  cases: CaseResult[];
}

interface Options {
  /** Seconds per case and round. */
  duration: number;
  warmup: number;
  rounds: number;
  connections: number;
  sizes: string[];
  largeDeals: number;
}

function options(): Options {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '4' },
      warmup: { type: 'string', default: '3' },
      rounds: { type: 'string', default: '5' },
      connections: { type: 'string', default: '10' },
      sizes: { type: 'string', default: 'demo,100k' },
      'large-deals': { type: 'string', default: '100000' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const number = (name: string, raw: string): number => {
    const value = Number(raw);
    if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number, got "${raw}"\n${USAGE}`);
    return value;
  };
  const sizes = values.sizes.split(',').map((s) => s.trim());
  for (const size of sizes) if (size !== 'demo' && size !== '100k') throw new Error(`--sizes takes demo and/or 100k, got "${size}"\n${USAGE}`);
  return {
    duration: number('duration', values.duration),
    warmup: number('warmup', values.warmup),
    rounds: Math.round(number('rounds', values.rounds)),
    connections: Math.round(number('connections', values.connections)),
    sizes,
    largeDeals: Math.round(number('large-deals', values['large-deals'])),
  };
}

/** Forks a compiled sibling script and waits for its first `ready` message. */
function start<T extends { type: string }>(script: string, args: string[], first?: ReferenceMessage): Promise<{ child: ChildProcess; ready: T }> {
  const child = fork(path.join(__dirname, script), args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${script} exited with code ${code} before it was ready`)));
    child.on('message', function onReady(message: T) {
      if (message.type !== 'ready') return;
      child.off('message', onReady);
      child.removeAllListeners('exit');
      resolve({ child, ready: message });
    });
    if (first) child.send(first);
  });
}

/** Sends a request to the gateway child and waits for its count answer. */
function ask(child: ChildProcess, request: GatewayRequest): Promise<Extract<GatewayAnswer, { type: 'count' }>> {
  return new Promise((resolve) => {
    child.on('message', function onAnswer(message: GatewayAnswer) {
      if (message.type !== 'count') return;
      child.off('message', onAnswer);
      resolve(message);
    });
    child.send(request);
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.send({ type: 'stop' });
  await exited;
}

interface Target {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
}

async function fetchJson(target: Target): Promise<any> {
  const response = await fetch(target.url, { method: target.method, headers: target.headers, body: target.body });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${target.method} ${target.url} answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

async function load(target: Target, seconds: number, connections: number): Promise<autocannon.Result> {
  return autocannon({ ...target, connections, duration: seconds, pipelining: 1 });
}

/** One case: what to load, and the gateway child whose database commands count (none for references). */
interface Case {
  name: string;
  label: string;
  target: Target;
  gateway?: ChildProcess;
}

function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** One measured run of one case: every answer must be a 200. */
async function measureOnce(c: Case, opts: Options): Promise<{ result: autocannon.Result; commands: number; byName: Record<string, number> } > {
  if (c.gateway) await ask(c.gateway, { type: 'reset' });
  const result = await load(c.target, opts.duration, opts.connections);
  const counted = c.gateway ? await ask(c.gateway, { type: 'count' }) : { commands: 0, byName: {} };
  if (result.non2xx > 0 || result.errors > 0 || result['2xx'] === 0) {
    throw new Error(`${c.name}: ${result.non2xx} non-2xx answers and ${result.errors} errors of ${result['2xx'] + result.non2xx} (expected all 200)`);
  }
  return { result, commands: counted.commands, byName: counted.byName };
}

/** Warms every case up, then measures them in `opts.rounds` interleaved rounds. */
async function measureRounds(cases: Case[], opts: Options): Promise<CaseResult[]> {
  for (const c of cases) await load(c.target, opts.warmup, opts.connections);
  const runs = new Map<string, Array<Awaited<ReturnType<typeof measureOnce>>>>(cases.map((c) => [c.name, []]));
  for (let round = 1; round <= opts.rounds; round += 1) {
    for (const c of cases) {
      const run = await measureOnce(c, opts);
      runs.get(c.name)!.push(run);
      console.log(`  round ${round}  ${c.label.padEnd(44)} ${(run.result['2xx'] / opts.duration).toFixed(0).padStart(7)} req/s  p50 ${run.result.latency.p50} ms  p99 ${run.result.latency.p99} ms`);
    }
  }
  return cases.map((c) => {
    const list = runs.get(c.name)!;
    const answered = list.reduce((sum, run) => sum + run.result['2xx'], 0);
    const commands = list.reduce((sum, run) => sum + run.commands, 0);
    const byName: Record<string, number> = {};
    for (const run of list) for (const [key, n] of Object.entries(run.byName)) byName[key] = (byName[key] ?? 0) + n;
    const figures: CaseResult = {
      name: c.name,
      label: c.label,
      requests: answered,
      rounds: list.map((run) => Math.round(run.result['2xx'] / opts.duration)),
      reqPerSec: median(list.map((run) => run.result['2xx'] / opts.duration)),
      p50Ms: median(list.map((run) => run.result.latency.p50)),
      p99Ms: Math.max(...list.map((run) => run.result.latency.p99)),
      roundTripsPerRequest: c.gateway ? commands / answered : null,
    };
    if (c.gateway) figures.commands = Object.fromEntries(Object.entries(byName).map(([key, n]) => [key, Math.round((n / answered) * 100) / 100]));
    return figures;
  });
}

async function runSize(size: string, deals: number, opts: Options): Promise<SizeResult> {
  console.log(`\n== ${size}: ${deals} deals (seeding in the gateway process...)`);
  const gateway = await start<GatewayAnswer & { type: 'ready' }>('gateway-server.js', ['--deals', String(deals)]);
  const ready = gateway.ready as GatewayReady;
  console.log(`   seeded in ${ready.seedSeconds.toFixed(1)} s`);
  const base = `http://127.0.0.1:${ready.port}`;
  const auth = { authorization: `Bearer ${ready.memberToken}` };
  const json = { ...auth, 'content-type': 'application/json' };
  const graphql = (query: string, variables?: Record<string, unknown>): Target => ({
    url: `${base}/graphql`,
    method: 'POST',
    headers: json,
    body: JSON.stringify({ query, variables }),
  });

  const cases: CaseResult[] = [];
  const children: ChildProcess[] = [gateway.child];
  try {
    const pipelinesTarget: Target = { url: `${base}/pipelines`, method: 'GET', headers: auth };
    const pipelinesAnswer = await fetchJson(pipelinesTarget);
    const source = (await fetchJson(graphql(DASHBOARD_SOURCE_QUERY))).data;
    const arrays = toDashboardArrays(source);
    const complete = arrays.pipelines.find((p) => p.kind === 'COMPLETE');
    if (!complete) throw new Error('the seeded snapshot has no complete pipeline');
    const dashboardTarget = graphql(DASHBOARD_QUERY);
    const dashboardAnswer = await fetchJson(dashboardTarget);
    if (dashboardAnswer.errors) throw new Error(`dashboard query failed: ${JSON.stringify(dashboardAnswer.errors)}`);

    const bare = await start<ReferenceReady>('reference/bare-server.js', [], { type: 'serve', body: pipelinesAnswer });
    children.push(bare.child);
    const bareTarget: Target = { url: `http://127.0.0.1:${bare.ready.port}/pipelines`, method: 'GET', headers: {} };
    if (!isDeepStrictEqual(await fetchJson(bareTarget), pipelinesAnswer)) throw new Error('the bare server does not answer what GET /pipelines answers');

    const metricsTarget: Target = { url: `${base}/pipelines/metrics?pipeline_id=${encodeURIComponent(complete.id)}`, method: 'GET', headers: auth };
    await fetchJson(metricsTarget);
    const memberTarget = graphql(MEMBER_QUERY, { id: ready.memberId, year: new Date().getUTCFullYear() });
    const memberAnswer = await fetchJson(memberTarget);
    if (memberAnswer.errors || !memberAnswer.data.member.targets) throw new Error(`member query failed or has no targets: ${JSON.stringify(memberAnswer)}`);

    const reference = await start<ReferenceReady>('reference/mercurius-server.js', [], { type: 'serve', body: arrays });
    children.push(reference.child);
    const referenceTarget: Target = {
      url: `http://127.0.0.1:${reference.ready.port}/graphql`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: dashboardTarget.body,
    };
    if (!isDeepStrictEqual(await fetchJson(referenceTarget), dashboardAnswer)) throw new Error('Mercurius does not answer the dashboard query as the gateway does');

    cases.push(
      ...(await measureRounds(
        [
          { name: 'bare', label: '(a) bare node:http, GET /pipelines JSON', target: bareTarget },
          { name: 'rest-pipelines', label: '(b) gateway GET /pipelines', target: pipelinesTarget, gateway: gateway.child },
          { name: 'rest-metrics', label: '(c) gateway GET /pipelines/metrics', target: metricsTarget, gateway: gateway.child },
          { name: 'graphql-dashboard', label: '(d) gateway GraphQL dashboard', target: dashboardTarget, gateway: gateway.child },
          { name: 'graphql-member', label: '(e) gateway GraphQL member+team+targets', target: memberTarget, gateway: gateway.child },
          { name: 'mercurius-jit', label: '(f) Mercurius + graphql-jit, dashboard', target: referenceTarget },
        ],
        opts,
      )),
    );

    // Each ratio is the median of the ratios within a round, where the two cases ran a few seconds
    // apart: the machine's speed drifts from minute to minute, and this cancels that drift.
    const ratio = (c: CaseResult, reference: CaseResult): number =>
      Math.round(median(c.rounds.map((rate, round) => rate / reference.rounds[round]!)) * 100) / 100;
    for (const c of cases) {
      c.ratioToBare = ratio(c, cases[0]!);
      c.ratioToMercurius = ratio(c, cases.at(-1)!);
    }
    return { size, deals, seedSeconds: ready.seedSeconds, pipelines: arrays.pipelines.length, cases };
  } finally {
    for (const child of children) await stop(child);
  }
}

function printTable(results: SizeResult[]): void {
  for (const size of results) {
    console.log(`\n${size.size} (${size.deals} deals, ${size.pipelines} pipelines)`);
    console.log('case                                          req/s   p50 ms  p99 ms  ×bare  ×mercurius  db round trips/req');
    for (const c of size.cases) {
      console.log(
        `${c.label.padEnd(44)} ${c.reqPerSec.toFixed(0).padStart(7)} ${String(c.p50Ms).padStart(7)} ${String(c.p99Ms).padStart(7)} ${c.ratioToBare!.toFixed(2).padStart(6)} ${c.ratioToMercurius!.toFixed(2).padStart(11)}  ${c.roundTripsPerRequest === null ? '-' : c.roundTripsPerRequest.toFixed(2)}`,
      );
    }
  }
  if (results.length === 2) {
    console.log('\n100k ÷ demo throughput (b)–(e):');
    for (const c of results[0].cases.filter((c) => c.roundTripsPerRequest !== null)) {
      const large = results[1].cases.find((l) => l.name === c.name)!;
      console.log(`  ${c.label.padEnd(44)} ${(large.reqPerSec / c.reqPerSec).toFixed(2)}`);
    }
  }
}

async function main(): Promise<void> {
  const opts = options();
  console.log(
    `Gateway benchmark: ${opts.connections} connections, ${opts.warmup} s warm-up, then ${opts.rounds} rounds of ${opts.duration} s per case (cases interleaved; medians, ratios per round); each server in its own child process, autocannon (one thread) in this one.`,
  );
  const results: SizeResult[] = [];
  for (const size of opts.sizes) results.push(await runSize(size, size === 'demo' ? 3000 : opts.largeDeals, opts));
  printTable(results);
  const file = path.resolve(__dirname, '../../../test/bench/results/gateway.json');
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(
    file,
    `${JSON.stringify({ at: new Date().toISOString(), node: process.version, cpus: require('node:os').cpus().length, options: opts, results }, null, 2)}\n`,
  );
  console.log(`\nwritten to ${path.relative(process.cwd(), file)}`);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
