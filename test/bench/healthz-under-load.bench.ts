/**
 * Benchmark of the query cost model and of the event loop under expensive queries (security
 * finding 5: a member starving the server within the limits). The gateway runs in its own process
 * with the demo company; as a member:
 *   1. each query of the table: its estimated cost, the gateway's answer (accepted, or refused
 *      with its cost) and, when accepted, the gateway process's CPU time per query (Linux /proc),
 *      the queries sent one at a time;
 *   2. /healthz latency (p50, p99), idle, then while `--clients` clients (default 4) send one
 *      accepted query back to back for `--seconds` (default 10): the time-series or metrics query
 *      that took the most CPU (the shape of finding 5), then the accepted query that took the most
 *      CPU of all when that is another one.
 * Every query text is new (an alias suffix), so neither kept answers nor compiled documents are
 * reused, as an attacker would make sure. `--load TEXT` loads with the accepted query whose name
 * contains TEXT instead.
 * `npm run bench:healthz [-- --seconds S --clients N --deals N --runs N --load TEXT]`.
 */
import 'reflect-metadata';
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parse, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { buildGatewaySchema } from '../../src/graphql/build-schema';
import { estimateCost, QUERY_COST } from '../../src/security/query-cost';
import type { GatewayAnswer, GatewayReady } from './gateway-server';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    clients: { type: 'string', default: '4' },
    deals: { type: 'string', default: '3000' },
    runs: { type: 'string', default: '10' },
    load: { type: 'string' },
  },
});
const seconds = Number(values.seconds);
const clients = Number(values.clients);
const runs = Number(values.runs);

interface Answer {
  status: number;
  body: any;
}

function post(port: number, token: string, query: string): Promise<Answer> {
  const body = JSON.stringify({ query });
  return new Promise((resolve, reject) => {
    const headers = {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    };
    const req = http.request(
      { host: '127.0.0.1', port, path: '/graphql', method: 'POST', agent: false, headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function healthz(agent: http.Agent, port: number): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: '/healthz', agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(performance.now() - started));
      })
      .on('error', reject);
  });
}

/** CPU milliseconds (user + system) a process has used so far, from /proc; null elsewhere. */
function cpuMillis(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime and stime, fields 14 and 15 of stat, in clock ticks of 10 ms.
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

const quantile = (sorted: number[], q: number): number | undefined =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const ms = (x: number | undefined): string => (x === undefined ? 'n/a' : `${x.toFixed(1)} ms`);

/** A query of the table: its text for a suffix that makes it new. */
interface BenchQuery {
  name: string;
  text(suffix: string): string;
  /** A time-series or metrics query: the shape of finding 5. */
  evaluations?: boolean;
}

const aliased = (count: number, field: (alias: string) => string) => (suffix: string) =>
  Array.from({ length: count }, (_, i) => field(`a${i + 1}${suffix}`)).join(' ');

/** `count` aliased `timeseries(duration)` under every pipeline of every definition (the shape of finding 5). */
function underDefinitions(count: number, duration: number): BenchQuery {
  const fields = aliased(
    count,
    (alias) =>
      `${alias}: timeseries(metric: "win_rate", duration: ${duration}) { points { value } }`,
  );
  return {
    name: `snapshot.definitions.pipelines { ${count} × timeseries(duration: ${duration}) }`,
    text: (s) => `query { snapshot { definitions { pipelines { ${fields(s)} } } } }`,
    evaluations: true,
  };
}

/** The longest duration the cost limit accepts for `count` aliased series under every pipeline. */
function longestAccepted(schema: GraphQLSchema, count: number): number {
  let duration = 0;
  for (let d = 1; d <= 104; d++)
    if (costOf(schema, underDefinitions(count, d)) <= QUERY_COST.maxCost) duration = d;
  return duration;
}

function costOf(schema: GraphQLSchema, query: BenchQuery): number {
  const document = parse(query.text(''));
  return estimateCost(schema, document, document.definitions[0] as OperationDefinitionNode);
}

/** The directory of package.json: the bench runs from test/bench, or built from dist/test/bench. */
function projectRoot(): string {
  let dir = __dirname;
  while (!existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  return dir;
}

async function startGateway(deals: string): Promise<{ child: ChildProcess; ready: GatewayReady }> {
  const script = path.join(__dirname, `gateway-server${path.extname(__filename)}`);
  const child = fork(script, ['--deals', deals], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await new Promise<GatewayReady>((resolve, reject) => {
    child.once('message', (message: GatewayAnswer) =>
      message.type === 'ready' ? resolve(message) : reject(new Error(`unexpected ${message.type}`)),
    );
    child.once('exit', (code) => reject(new Error(`gateway exited with ${code}`)));
  });
  return { child, ready };
}

/** A member-role token of the demo company, issued by the admin, and the pipeline ids of the latest snapshot. */
async function memberAndPipelines(
  port: number,
  adminToken: string,
): Promise<{ token: string; pipelines: string[] }> {
  const members = await post(
    port,
    adminToken,
    '{ members(role: MEMBER, first: 1) { edges { node { id } } } }',
  );
  const id = members.body.data.members.edges[0].node.id as string;
  const issued = await post(
    port,
    adminToken,
    `mutation { issueToken(memberId: "${id}") { token } }`,
  );
  const snapshot = await post(
    port,
    adminToken,
    '{ snapshot { definitions { pipelines { id } } } }',
  );
  const pipelines = (
    snapshot.body.data.snapshot.definitions as Array<{ pipelines: Array<{ id: string }> }>
  ).flatMap((d) => d.pipelines.map((p) => p.id));
  return { token: issued.body.data.issueToken.token as string, pipelines };
}

async function main(): Promise<void> {
  const schema = await buildGatewaySchema();
  const { child, ready } = await startGateway(values.deals!);
  const { port } = ready;
  const { token, pipelines } = await memberAndPipelines(port, ready.adminToken);
  let unique = 0;
  const next = () => `_${(unique += 1)}`;

  const explorer = readFileSync(
    path.join(projectRoot(), 'src/graphql/operations/explorer-overview.graphql'),
    'utf8',
  );
  const pipelineSeries = aliased(
    15,
    (alias) =>
      `${alias}: pipeline(id: "${pipelines[0]}") { timeseries(metric: "win_rate", duration: 104) { points { value } } }`,
  );
  const longest = longestAccepted(schema, 1);
  const queries: BenchQuery[] = [
    underDefinitions(14, 104),
    underDefinitions(1, 104),
    underDefinitions(1, longest),
    underDefinitions(4, longestAccepted(schema, 4)),
    {
      name: '15 × pipeline(id).timeseries(duration: 104)',
      text: (s) => `query { ${pipelineSeries(s)} }`,
      evaluations: true,
    },
    {
      name: 'explorer default query',
      text: (s) => explorer.replace('query ExplorerOverview', `query ExplorerOverview${s}`),
    },
    {
      name: 'snapshot.definitions.pipelines { 15 × metrics }',
      text: (s) =>
        `query { snapshot { definitions { pipelines { ${aliased(15, (alias) => `${alias}: metrics { value }`)(s)} } } } }`,
      evaluations: true,
    },
    {
      name: 'snapshot.definitions.pipelines { 15 × metrics(names: [2 names]) }',
      text: (s) =>
        `query { snapshot { definitions { pipelines { ${aliased(15, (alias) => `${alias}: metrics(names: ["win_rate", "pipeline_value"]) { value }`)(s)} } } } }`,
      evaluations: true,
    },
    {
      name: '15 × pipeline(id).opportunities(first: 100)',
      text: (s) =>
        `query { ${aliased(15, (alias) => `${alias}: pipeline(id: "${pipelines[0]}") { opportunities(first: 100) { edges { node { id amount name } } } }`)(s)} }`,
    },
    {
      name: 'teams.pipelines.opportunities(first: 35)',
      text: (s) =>
        `query Q${s} { teams { pipelines { opportunities(first: 35) { edges { node { id amount name } } } } } }`,
    },
    {
      name: 'finding 4: teams.pipelines.opportunities(first: $n = 100), no variables',
      text: (s) =>
        `query Q${s}($n: Int! = 100) { teams { pipelines { opportunities(first: $n) { edges { node { id amount } } } } } }`,
    },
  ];

  console.log(
    `healthz-under-load bench: demo company (${values.deals} deals, ${pipelines.length} pipelines in the latest snapshot), gateway in its own process, member token, ${new Date().toISOString()}`,
  );
  console.log(
    `cost limit ${QUERY_COST.maxCost}; CPU: the gateway process's, mean of ${runs} queries sent one at a time`,
  );
  console.log(
    `${'query'.padEnd(72)}${'estimate'.padStart(9)}  ${'answer'.padEnd(10)}CPU per query`,
  );
  const accepted: Array<{ query: BenchQuery; cpu: number }> = [];
  for (const query of queries) {
    const estimate = costOf(schema, query);
    const first = await post(port, token, query.text(next()));
    const errors = first.body.errors as
      Array<{ message: string; extensions: { code: string } }> | undefined;
    const refused =
      first.status !== 200 ||
      errors?.some((e) => e.extensions.code === 'GRAPHQL_VALIDATION_FAILED');
    let cpu = '';
    if (!refused) {
      const before = cpuMillis(child.pid!);
      for (let i = 0; i < runs; i++) await post(port, token, query.text(next()));
      const after = cpuMillis(child.pid!);
      if (before !== null && after !== null) {
        const perQuery = (after - before) / runs;
        cpu = `${perQuery.toFixed(0)} ms`;
        accepted.push({ query, cpu: perQuery });
      }
      if (errors) cpu += ` (errors: ${errors.map((e) => e.extensions.code).join(', ')})`;
    }
    if (refused && errors?.[0]?.message.startsWith('Query cost') !== true)
      cpu = `(${errors?.[0]?.message ?? first.status})`;
    console.log(
      `${query.name.padEnd(72)}${String(estimate).padStart(9)}  ${(refused ? `refused ${first.status}` : 'accepted').padEnd(10)}${cpu}`,
    );
  }

  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const idle: number[] = [];
  for (let i = 0; i < 200; i++) idle.push(await healthz(agent, port));
  idle.sort((a, b) => a - b);
  console.log(
    `/healthz idle:       p50 ${ms(quantile(idle, 0.5))}, p99 ${ms(quantile(idle, 0.99))} (${idle.length} probes)`,
  );

  const heaviest = (candidates: typeof accepted) =>
    [...candidates].sort((a, b) => b.cpu - a.cpu)[0]?.query;
  const loads =
    values.load === undefined
      ? [heaviest(accepted.filter(({ query }) => query.evaluations)), heaviest(accepted)]
      : [accepted.find(({ query }) => query.name.includes(values.load!))?.query];
  for (const query of new Set(loads)) {
    if (query) await underLoad(query);
  }

  async function underLoad(query: BenchQuery): Promise<void> {
    const loaded: number[] = [];
    let answered = 0;
    const deadline = performance.now() + seconds * 1000;
    const load = async () => {
      while (performance.now() < deadline) {
        await post(port, token, query.text(next()));
        answered += 1;
      }
    };
    // One probe at a time, 20 ms apart, on a kept-alive connection, as a health checker would.
    const probe = async () => {
      while (performance.now() < deadline) {
        loaded.push(await healthz(agent, port));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const before = cpuMillis(child.pid!);
    await Promise.all([...Array.from({ length: clients }, load), probe()]);
    const after = cpuMillis(child.pid!);
    loaded.sort((a, b) => a - b);
    const busy =
      before === null || after === null
        ? ''
        : `, gateway CPU ${(((after - before) / (seconds * 1000)) * 100).toFixed(0)}% of one core`;
    console.log(
      `load: ${clients} clients × "${query.name}" for ${seconds} s: ${answered} answers (${(answered / seconds).toFixed(1)}/s)${busy}`,
    );
    console.log(
      `  /healthz under load: p50 ${ms(quantile(loaded, 0.5))}, p99 ${ms(quantile(loaded, 0.99))}, max ${ms(loaded.at(-1))} (${loaded.length} probes)`,
    );
  }
  agent.destroy();
  child.send({ type: 'stop' });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
