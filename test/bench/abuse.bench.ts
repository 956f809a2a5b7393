/**
 * Load run: valid traffic alone, then the same valid traffic beside a flood of hostile requests
 * (deep and wide queries, alias and directive floods, introspection as a member, malformed JSON,
 * operator injection, bad tokens; oversized bodies are left to test/security: autocannon's
 * pipelined client cannot read a 413 sent before the body was consumed), on loopback. Prints requests served, answers
 * by status, the 5xx count (must be 0), p99 of the valid requests alone and under abuse, and
 * memory before and after.
 *
 * Then hostile floods against a gateway in a process of its own (in-memory embedded store, default
 * limits, rate limit off so that one caller can send a flood): an idle run, then each attack (an
 * 80 000-key body, 1 MB of unused GraphQL variables, nesting 10 000 deep, 404s with 8 KB URLs) for
 * the same time, each with the gateway's peak RSS, its event-loop delay p99 and the p99 of
 * `/healthz` asked every 10 ms meanwhile, side by side.
 *
 * `npm run bench:abuse [-- --duration S --connections N]`. Exits 1 on any 5xx.
 */
import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { Role } from '../../src/auth/role';
import { insertMember } from '../auth/members.fixture';
import { startGateway } from '../helpers/gateway';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '8' },
  },
});
const duration = Number(values.duration);
const connections = Number(values.connections);

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function run(options: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

async function main(): Promise<void> {
  const gw = await startGateway({ env: { BODY_LIMIT: '65536', RATE_LIMIT: '0' } });
  for (let i = 0; i < 20; i += 1)
    await gw.request('POST', '/teams', { body: { team_id: `team-${i}`, name: `Team ${i}` } });
  const memberToken = await gw.tokenFor(await insertMember(Role.MEMBER, 'team-1'));
  const admin = { authorization: `Bearer ${gw.adminToken}`, 'content-type': 'application/json' };
  const member = { authorization: `Bearer ${memberToken}`, 'content-type': 'application/json' };

  const valid: autocannon.Request[] = [
    {
      method: 'POST',
      path: '/graphql',
      headers: admin,
      body: JSON.stringify({ query: '{ viewer { role } teams { id name } }' }),
    },
    { method: 'GET', path: '/teams', headers: admin },
    {
      method: 'POST',
      path: '/graphql',
      headers: member,
      body: JSON.stringify({
        query: '{ members(first: 20) { edges { node { id firstname team { name } } } } }',
      }),
    },
  ];
  const nested = (inner: string) =>
    `{ teams { members { edges { node { team { ${inner} } } } } } }`;
  const hostile: Array<autocannon.Request & { name: string }> = [
    {
      name: 'depth 7',
      method: 'POST',
      path: '/graphql',
      headers: admin,
      body: JSON.stringify({ query: nested('pipelines { id }') }),
    },
    {
      name: '40 aliases',
      method: 'POST',
      path: '/graphql',
      headers: admin,
      body: JSON.stringify({
        query: `{ ${Array.from({ length: 40 }, (_, i) => `a${i}: teams { id }`).join(' ')} }`,
      }),
    },
    {
      name: '1200 tokens',
      method: 'POST',
      path: '/graphql',
      headers: admin,
      body: JSON.stringify({
        query: `{ ${Array.from({ length: 1200 }, () => '__typename').join(' ')} }`,
      }),
    },
    {
      name: '60 directives',
      method: 'POST',
      path: '/graphql',
      headers: admin,
      body: JSON.stringify({
        query: `{ viewer { ${Array.from({ length: 60 }, () => 'role @include(if: true)').join(' ')} } }`,
      }),
    },
    {
      name: 'cost over limit',
      method: 'POST',
      path: '/graphql',
      headers: admin,
      body: JSON.stringify({
        query:
          '{ teams { members(first: 100) { edges { node { id email firstname lastname role pipelines { id __typename } } } } } }',
      }),
    },
    {
      name: 'introspection as member',
      method: 'POST',
      path: '/graphql',
      headers: member,
      body: JSON.stringify({ query: '{ __schema { types { name fields { name } } } }' }),
    },
    {
      name: 'batched array',
      method: 'POST',
      path: '/graphql',
      headers: admin,
      body: JSON.stringify([{ query: '{ viewer { role } }' }, { query: '{ viewer { role } }' }]),
    },
    {
      name: '$gt in body',
      method: 'POST',
      path: '/teams',
      headers: admin,
      body: '{"team_id": {"$gt": ""}, "name": "x"}',
    },
    {
      name: '__proto__ in body',
      method: 'POST',
      path: '/teams',
      headers: admin,
      body: '{"team_id": "p", "name": "x", "__proto__": {"polluted": true}}',
    },
    {
      name: 'malformed JSON',
      method: 'POST',
      path: '/teams',
      headers: admin,
      body: '{"team_id": "p", ',
    },
    // Every hostile request has a body: autocannon otherwise carries the previous request's body and headers over.
    {
      name: 'alg none token',
      method: 'POST',
      path: '/teams',
      headers: {
        authorization: 'Bearer eyJhbGciOiJub25lIn0.e30.',
        'content-type': 'application/json',
      },
      body: '{"team_id":"t","name":"n"}',
    },
    {
      name: 'member creating a team',
      method: 'POST',
      path: '/teams',
      headers: member,
      body: JSON.stringify({ team_id: 'nope', name: 'Nope' }),
    },
  ];

  const url = gw.url;
  global.gc?.();
  const before = process.memoryUsage();
  const alone = await run({ url, connections, duration, requests: valid });
  // One autocannon instance per hostile request type, one connection each, so statuses are
  // attributed per type (a shared request list is attributed per connection only).
  const [underAbuse, ...abuseRuns] = await Promise.all([
    run({ url, connections, duration, requests: valid }),
    ...hostile.map(({ name: _name, ...request }) =>
      run({ url, connections: 1, duration, requests: [request] }),
    ),
  ]);
  global.gc?.();
  const after = process.memoryUsage();
  const polluted = ({} as Record<string, unknown>).polluted;
  // autocannon attributes answers per connection, not per request of the list, so the hostile
  // column is only indicative; what matters is checked here: no hostile request wrote anything.
  const teams = (await gw.request('GET', '/teams')).body.teams as unknown[];
  await gw.stop();

  const statuses = (result: autocannon.Result) =>
    Object.entries(
      (result as unknown as { statusCodeStats?: Record<string, { count: number }> })
        .statusCodeStats ?? {},
    )
      .map(([code, { count }]) => `${code}×${count}`)
      .join(' ');
  const fivexx = alone['5xx'] + underAbuse['5xx'] + abuseRuns.reduce((sum, r) => sum + r['5xx'], 0);
  const hostileTotal = abuseRuns.reduce((sum, r) => sum + r.requests.total, 0);
  console.log(
    `abuse bench: ${duration} s per phase, ${connections} valid connections, ${hostile.length} hostile (in-process gateway, loopback)`,
  );
  console.log(
    `requests served:        ${alone.requests.total + underAbuse.requests.total + hostileTotal}`,
  );
  console.log(`  valid alone:          ${alone.requests.total} (${statuses(alone)})`);
  console.log(`  valid under abuse:    ${underAbuse.requests.total} (${statuses(underAbuse)})`);
  console.log(`  hostile:              ${hostileTotal}`);
  hostile.forEach(({ name }, i) =>
    console.log(`    ${name.padEnd(24)}${abuseRuns[i].requests.total} (${statuses(abuseRuns[i])})`),
  );
  console.log(`5xx answers:            ${fivexx}`);
  console.log(`valid p99 alone:        ${alone.latency.p99} ms (p50 ${alone.latency.p50} ms)`);
  console.log(
    `valid p99 under abuse:  ${underAbuse.latency.p99} ms (p50 ${underAbuse.latency.p50} ms)`,
  );
  console.log(
    `memory before: rss ${mb(before.rss)}, heap ${mb(before.heapUsed)}; after: rss ${mb(after.rss)}, heap ${mb(after.heapUsed)}`,
  );
  console.log(`prototype polluted:     ${polluted === undefined ? 'no' : 'YES'}`);
  console.log(
    `teams after the run:    ${teams.length} (20 created before; more means a hostile write)`,
  );
  if (
    teams.length !== 20 ||
    fivexx > 0 ||
    polluted !== undefined ||
    alone.errors + underAbuse.errors > 0 ||
    abuseRuns.some((r) => r['2xx'] > 0)
  )
    process.exitCode = 1;
}

// ---- Hostile floods, measured in a gateway process of its own -------------------------------

/** Set in the environment of the gateway process the floods run against. */
const FLOOD_GATEWAY_ENV = 'ABUSE_BENCH_FLOOD_GATEWAY';
/** Connections each attack keeps busy, one request after another on each. */
const FLOOD_CONNECTIONS = 2;

/** Where the flood gateway listens, and a member's token: one member token is all an attacker needs. */
interface FloodTarget {
  port: number;
  memberToken: string;
}

/** What the flood gateway measured since the previous sample. */
interface GatewaySample {
  type: 'sample';
  /** Highest resident set size, sampled every 50 ms. */
  rssPeakMb: number;
  loopP99Ms: number;
  loopMaxMs: number;
}

type FloodGatewayMessage = ({ type: 'ready' } & FloodTarget) | GatewaySample;

/** One request of a flood, built beforehand so that the client does little work per request. */
interface FloodRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

/** Answers by HTTP status; 0 counts requests whose connection failed. */
type Answers = Map<number, number>;

/** An attack sends its traffic to the gateway until `until` (a `performance.now()` time). */
type Attack = (target: FloodTarget, until: number) => Promise<Answers>;

function sendFloodRequest(agent: http.Agent, port: number, request: FloodRequest): Promise<number> {
  return new Promise((resolve) => {
    const headers =
      request.body === undefined
        ? request.headers
        : { ...request.headers, 'content-length': String(request.body.length) };
    const req = http.request(
      { host: '127.0.0.1', port, method: request.method, path: request.path, headers, agent },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', () => resolve(0));
      },
    );
    req.on('error', () => resolve(0));
    req.end(request.body);
  });
}

/** Sends `requests` round-robin on FLOOD_CONNECTIONS connections until `until`. */
async function flood(
  target: FloodTarget,
  requests: FloodRequest[],
  until: number,
): Promise<Answers> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: FLOOD_CONNECTIONS });
  const answers: Answers = new Map();
  let next = 0;
  const connection = async (): Promise<void> => {
    while (performance.now() < until) {
      const status = await sendFloodRequest(agent, target.port, requests[next++ % requests.length]);
      answers.set(status, (answers.get(status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: FLOOD_CONNECTIONS }, connection));
  agent.destroy();
  return answers;
}

const asMember = (target: FloodTarget): Record<string, string> => ({
  authorization: `Bearer ${target.memberToken}`,
  'content-type': 'application/json',
});

/** No attack: what the gateway looks like with only the health probes. */
async function idleRun(_target: FloodTarget, until: number): Promise<Answers> {
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, until - performance.now())));
  return new Map();
}

/**
 * 80 000 keys in one JSON object (about 750 KB), as a member: to the import, which the role gate
 * refuses, and as the JSON body of a read every role may call.
 */
async function wideBodyAttack(target: FloodTarget, until: number): Promise<Answers> {
  const body = Buffer.from(
    JSON.stringify(
      Object.fromEntries(Array.from({ length: 80_000 }, (_, i) => [`k${i.toString(36)}`, 0])),
    ),
  );
  const headers = asMember(target);
  return flood(
    target,
    [
      { method: 'POST', path: '/crm/imports', headers, body },
      { method: 'GET', path: '/teams/members', headers, body },
    ],
    until,
  );
}

/** About 900 KB of variables the operation does not declare, over 50 documents, as a member. */
async function unusedVariablesAttack(target: FloodTarget, until: number): Promise<Answers> {
  const requests = Array.from({ length: 50 }, (_, document) => {
    const variables = Object.fromEntries(
      Array.from({ length: 900 }, (_, i) => [`unused_${document}_${i}`, 'x'.repeat(1_000)]),
    );
    const query = `query Q${document} { viewer { role } }`;
    return {
      method: 'POST',
      path: '/graphql',
      headers: asMember(target),
      body: Buffer.from(JSON.stringify({ query, variables })),
    };
  });
  return flood(target, requests, until);
}

/** JSON nested 10 000 levels deep, as a member: a REST body and a GraphQL variable. */
async function deepNestingAttack(target: FloodTarget, until: number): Promise<Answers> {
  const deep = `${'{"a":'.repeat(10_000)}0${'}'.repeat(10_000)}`;
  const query = 'query($t: ID) { members(teamId: $t) { edges { cursor } } }';
  const headers = asMember(target);
  return flood(
    target,
    [
      { method: 'GET', path: '/teams/members', headers, body: Buffer.from(deep) },
      {
        method: 'POST',
        path: '/graphql',
        headers,
        body: Buffer.from(`{"query":${JSON.stringify(query)},"variables":{"t":${deep}}}`),
      },
    ],
    until,
  );
}

/** Paths no route matches, each 8 KB long, without a token. */
async function notFoundFloodAttack(target: FloodTarget, until: number): Promise<Answers> {
  const requests = Array.from({ length: 100 }, (_, i) => ({
    method: 'GET',
    path: `/no-such-route/${i}/${'x'.repeat(8_000)}`,
    headers: {},
  }));
  return flood(target, requests, until);
}

/** The runs of the table, in order; the idle run first. */
const ATTACKS: Array<[name: string, attack: Attack]> = [
  ['idle (health probes only)', idleRun],
  ['80 000-key body', wideBodyAttack],
  ['1 MB of unused GraphQL variables', unusedVariablesAttack],
  ['nesting 10 000 deep', deepNestingAttack],
  ['404s with 8 KB URLs', notFoundFloodAttack],
];

/** `/healthz` every 10 ms until `until`, on a connection of its own: the latencies. */
async function probeHealthz(port: number, until: number): Promise<number[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const latencies: number[] = [];
  while (performance.now() < until) {
    const started = performance.now();
    await sendFloodRequest(agent, port, { method: 'GET', path: '/healthz', headers: {} });
    latencies.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  agent.destroy();
  return latencies;
}

function p99(values: number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))];
}

/** The flood gateway (this file, run with FLOOD_GATEWAY_ENV set): answers samples over IPC. */
async function serveFloodGateway(): Promise<void> {
  const gw = await startGateway({ env: { RATE_LIMIT: '0' } });
  const memberToken = await gw.tokenFor(await insertMember(Role.MEMBER, 'team-1'));
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  let rssPeak = process.memoryUsage().rss;
  setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 50).unref();
  const send = (message: FloodGatewayMessage): void => void process.send!(message);
  process.on('message', (message: { type: 'sample' | 'stop' }) => {
    if (message.type === 'stop') {
      void gw.stop().then(() => process.exit(0));
      return;
    }
    send({
      type: 'sample',
      rssPeakMb: rssPeak / 1024 / 1024,
      loopP99Ms: loop.percentile(99) / 1e6,
      loopMaxMs: loop.max / 1e6,
    });
    loop.reset();
    rssPeak = process.memoryUsage().rss;
  });
  send({ type: 'ready', port: gw.port, memberToken });
}

function nextMessage(child: ChildProcess): Promise<FloodGatewayMessage> {
  return new Promise((resolve, reject) => {
    const exited = (code: number | null): void =>
      reject(new Error(`the flood gateway exited with ${code}`));
    child.once('exit', exited);
    child.once('message', (message: FloodGatewayMessage) => {
      child.off('exit', exited);
      resolve(message);
    });
  });
}

async function sampleGateway(child: ChildProcess): Promise<GatewaySample> {
  const answer = nextMessage(child);
  child.send({ type: 'sample' });
  const message = await answer;
  if (message.type !== 'sample') throw new Error(`expected a sample, got ${message.type}`);
  return message;
}

/** Runs every attack of ATTACKS for `duration` seconds and prints the table; true if any got a 5xx. */
async function hostileFloods(): Promise<boolean> {
  const child = fork(__filename, [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, [FLOOD_GATEWAY_ENV]: '1' },
  });
  const ready = await nextMessage(child);
  if (ready.type !== 'ready') throw new Error(`expected ready, got ${ready.type}`);
  const target: FloodTarget = { port: ready.port, memberToken: ready.memberToken };
  const loadBefore = os.loadavg()[0];
  const rows: string[][] = [];
  let fivexx = 0;
  for (const [name, attack] of ATTACKS) {
    await sampleGateway(child);
    const until = performance.now() + duration * 1000;
    const [answers, healthz] = await Promise.all([
      attack(target, until),
      probeHealthz(target.port, until),
    ]);
    const gateway = await sampleGateway(child);
    const total = [...answers.values()].reduce((sum, n) => sum + n, 0);
    for (const [status, count] of answers) if (status >= 500) fivexx += count;
    rows.push([
      name,
      String(total),
      [...answers].map(([status, count]) => `${status}×${count}`).join(' ') || '-',
      gateway.rssPeakMb.toFixed(1),
      gateway.loopP99Ms.toFixed(1),
      gateway.loopMaxMs.toFixed(1),
      p99(healthz).toFixed(1),
      String(healthz.length),
    ]);
  }
  const loadAfter = os.loadavg()[0];
  child.send({ type: 'stop' });
  await new Promise((resolve) => child.once('exit', resolve));

  console.log(
    `\nhostile floods: ${duration} s each, ${FLOOD_CONNECTIONS} connections per attack, the gateway in its own process (in-memory embedded store, default limits, rate limit off)`,
  );
  console.log(
    `machine: ${os.cpus().length} CPUs, load average ${loadBefore.toFixed(1)} before, ${loadAfter.toFixed(1)} after`,
  );
  const header = [
    'run',
    'requests',
    'answers',
    'RSS peak MB',
    'loop p99 ms',
    'loop max ms',
    '/healthz p99 ms',
    'probes',
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  for (const row of [header, ...rows])
    console.log(
      row
        .map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i])))
        .join('  '),
    );
  console.log(`5xx answers in the floods: ${fivexx}`);
  return fivexx > 0;
}

if (process.env[FLOOD_GATEWAY_ENV] === '1') {
  serveFloodGateway().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
} else {
  main()
    .then(hostileFloods)
    .then((failed) => {
      if (failed) process.exitCode = 1;
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
