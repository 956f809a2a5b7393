/**
 * Benchmark: the gateway's read paths against a bare node:http ceiling and a Mercurius +
 * graphql-jit reference, at the demo size and at 100k deals. Prints figures and writes them to
 * test/bench/results/gateway.json; asserts nothing beyond "every answer was a 200 and the
 * reference answers what the gateway answers". Run with `npm run bench` (flags after `--`).
 *
 * Fairness: every server under test runs in its own child process, alone under load (the others
 * idle); autocannon runs in this process, so load generation and serving compete for the two
 * cores the way a client on the same machine would. 10 connections, one autocannon thread.
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

const USAGE = `Usage: npm run bench -- [--duration S] [--warmup S] [--connections N] [--sizes demo,100k] [--large-deals N]`;

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
  p50Ms: number;
  p99Ms: number;
  /** Database commands received during the measured run ÷ requests; null for servers without a database. */
  roundTripsPerRequest: number | null;
  commands?: Record<string, number>;
  ratioToBare?: number;
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
  duration: number;
  warmup: number;
  connections: number;
  sizes: string[];
  largeDeals: number;
}

function options(): Options {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '3' },
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

async function measure(name: string, label: string, target: Target, opts: Options, gateway?: ChildProcess): Promise<CaseResult> {
  await load(target, opts.warmup, opts.connections);
  if (gateway) await ask(gateway, { type: 'reset' });
  const result = await load(target, opts.duration, opts.connections);
  const counted = gateway ? await ask(gateway, { type: 'count' }) : null;
  const answered = result['2xx'];
  if (result.non2xx > 0 || result.errors > 0 || answered === 0) {
    throw new Error(`${name}: ${result.non2xx} non-2xx answers and ${result.errors} errors of ${answered + result.non2xx} (expected all 200)`);
  }
  const figures: CaseResult = {
    name,
    label,
    requests: answered,
    reqPerSec: answered / opts.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    roundTripsPerRequest: counted ? counted.commands / answered : null,
  };
  if (counted) figures.commands = Object.fromEntries(Object.entries(counted.byName).map(([key, n]) => [key, Math.round((n / answered) * 100) / 100]));
  console.log(`  ${label.padEnd(44)} ${figures.reqPerSec.toFixed(0).padStart(7)} req/s  p50 ${figures.p50Ms} ms  p99 ${figures.p99Ms} ms`);
  return figures;
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
    cases.push(await measure('bare', '(a) bare node:http, GET /pipelines JSON', bareTarget, opts));
    await stop(bare.child);

    cases.push(await measure('rest-pipelines', '(b) gateway GET /pipelines', pipelinesTarget, opts, gateway.child));
    const metricsTarget: Target = { url: `${base}/pipelines/metrics?pipeline_id=${encodeURIComponent(complete.id)}`, method: 'GET', headers: auth };
    await fetchJson(metricsTarget);
    cases.push(await measure('rest-metrics', '(c) gateway GET /pipelines/metrics', metricsTarget, opts, gateway.child));
    cases.push(await measure('graphql-dashboard', '(d) gateway GraphQL dashboard', dashboardTarget, opts, gateway.child));
    const memberTarget = graphql(MEMBER_QUERY, { id: ready.memberId, year: new Date().getUTCFullYear() });
    const memberAnswer = await fetchJson(memberTarget);
    if (memberAnswer.errors || !memberAnswer.data.member.targets) throw new Error(`member query failed or has no targets: ${JSON.stringify(memberAnswer)}`);
    cases.push(await measure('graphql-member', '(e) gateway GraphQL member+team+targets', memberTarget, opts, gateway.child));

    const reference = await start<ReferenceReady>('reference/mercurius-server.js', [], { type: 'serve', body: arrays });
    children.push(reference.child);
    const referenceTarget: Target = {
      url: `http://127.0.0.1:${reference.ready.port}/graphql`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: dashboardTarget.body,
    };
    if (!isDeepStrictEqual(await fetchJson(referenceTarget), dashboardAnswer)) throw new Error('Mercurius does not answer the dashboard query as the gateway does');
    cases.push(await measure('mercurius-jit', '(f) Mercurius + graphql-jit, dashboard', referenceTarget, opts));
    await stop(reference.child);

    const bareRate = cases[0].reqPerSec;
    const mercuriusRate = cases.at(-1)!.reqPerSec;
    for (const c of cases) {
      c.ratioToBare = Math.round((c.reqPerSec / bareRate) * 100) / 100;
      c.ratioToMercurius = Math.round((c.reqPerSec / mercuriusRate) * 100) / 100;
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
    `Gateway benchmark: ${opts.connections} connections, ${opts.warmup} s warm-up + ${opts.duration} s per case; each server in its own child process, autocannon (one thread) in this one.`,
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
