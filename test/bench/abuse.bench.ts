/**
 * Benchmark of the gateway under attack. The gateway runs in its own process on the demo company
 * (gateway-server.ts); this process attacks it and probes `GET /healthz` every 100 ms, each probe
 * on a new connection from 127.0.0.1 (attacks come from other loopback addresses, as from other
 * machines). For an idle run, then for each attack in turn, it prints side by side the gateway's
 * peak RSS, its event-loop delay p99, and the probes' p50, p99 and failures; then what each attack did.
 * `npm run bench:abuse [-- --seconds S --attacks slowloris,hostile-requests]`. Exits 1 when an
 * attack's own check fails (a 5xx, a hostile write).
 *
 * The attacks: a slowloris; hostile requests beside valid traffic; and floods of one kind each,
 * as a member (one member token is all an attacker needs): an 80 000-key JSON body, 1 MB of unused
 * GraphQL variables over 50 documents, nesting 10 000 deep, 404s with 8 KB URLs.
 *
 * An attack is one object (ATTACKS below): it starts, runs until stopped, and says what it did.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { startSlowloris } from '../helpers/slowloris';
import { start, stop } from './child-processes';
import type { GatewayAnswer, GatewayLoad, GatewayReady } from './gateway-server';

/** The gateway under attack, as the attacks see it. */
interface Target {
  port: number;
  url: string;
  adminToken: string;
  /** A JWT of a member-role member of the demo company. */
  memberToken: string;
}

/** An attack under way. */
interface Running {
  /** Ends the attack; lines saying what it did, and whether its own check held. */
  stop(): Promise<{ lines: string[]; ok: boolean }>;
}

interface Attack {
  name: string;
  start(target: Target): Promise<Running>;
}

/**
 * 1 024 connections holding half-sent headers (the default MAX_CONNECTIONS), 1 000 of them from
 * one address and 24 from a second, each reopened as soon as the gateway closes it.
 */
const slowloris: Attack = {
  name: 'slowloris',
  async start(target) {
    const from = [
      { address: '127.0.0.2', connections: 1000 },
      { address: '127.0.0.3', connections: 24 },
    ];
    const attack = startSlowloris({ port: target.port, from });
    return {
      async stop() {
        const tally = await attack.stop();
        return {
          ok: true,
          lines: [
            `${from.map((f) => `${f.connections} from ${f.address}`).join(', ')}; ` +
              `${tally.opened} connections opened, ${tally.closed} closed by the gateway, ${tally.holding} open at the end`,
          ],
        };
      },
    };
  },
};

function autocannonRun(options: autocannon.Options): {
  result: Promise<autocannon.Result>;
  stop(): void;
} {
  let instance: autocannon.Instance | undefined;
  const result = new Promise<autocannon.Result>((resolve, reject) => {
    instance = autocannon(options, (error, done) => (error ? reject(error) : resolve(done)));
  });
  return { result, stop: () => instance?.stop() };
}

function statuses(result: autocannon.Result): string {
  const stats =
    (result as unknown as { statusCodeStats?: Record<string, { count: number }> })
      .statusCodeStats ?? {};
  return Object.entries(stats)
    .map(([code, { count }]) => `${code}×${count}`)
    .join(' ');
}

/**
 * Valid traffic (8 connections) beside a flood of hostile requests, one connection each: deep and
 * wide queries, alias and directive floods, introspection as a member, malformed JSON, operator
 * injection, bad tokens. Oversized bodies are left to test/security (autocannon's pipelined client
 * cannot read a 413 sent before the body was consumed). Its check: no 5xx, nothing written.
 */
const hostileRequests: Attack = {
  name: 'hostile-requests',
  async start(target) {
    const admin = {
      authorization: `Bearer ${target.adminToken}`,
      'content-type': 'application/json',
    };
    const member = {
      authorization: `Bearer ${target.memberToken}`,
      'content-type': 'application/json',
    };
    const graphql = (headers: Record<string, string>, query: string) => ({
      method: 'POST' as const,
      path: '/graphql',
      headers,
      body: JSON.stringify({ query }),
    });
    const valid: autocannon.Request[] = [
      graphql(admin, '{ viewer { role } teams { id name } }'),
      { method: 'GET', path: '/teams', headers: admin },
      graphql(member, '{ members(first: 20) { edges { node { id firstname team { name } } } } }'),
    ];
    const nested = (inner: string) =>
      `{ teams { members { edges { node { team { ${inner} } } } } } }`;
    const many = (count: number, text: (i: number) => string) =>
      Array.from({ length: count }, (_, i) => text(i)).join(' ');
    // Every hostile request has a body: autocannon otherwise carries the previous request's body and headers over.
    const teams = (headers: Record<string, string>, body: string) => ({
      method: 'POST' as const,
      path: '/teams',
      headers,
      body,
    });
    const hostile: Array<[string, autocannon.Request]> = [
      ['depth 7', graphql(admin, nested('pipelines { id }'))],
      ['40 aliases', graphql(admin, `{ ${many(40, (i) => `a${i}: teams { id }`)} }`)],
      ['1200 tokens', graphql(admin, `{ ${many(1200, () => '__typename')} }`)],
      [
        '60 directives',
        graphql(admin, `{ viewer { ${many(60, () => 'role @include(if: true)')} } }`),
      ],
      [
        'cost over limit',
        graphql(
          admin,
          '{ teams { members(first: 100) { edges { node { id email firstname lastname role pipelines { id __typename } } } } } }',
        ),
      ],
      [
        'introspection as member',
        graphql(member, '{ __schema { types { name fields { name } } } }'),
      ],
      [
        'batched array',
        {
          method: 'POST',
          path: '/graphql',
          headers: admin,
          body: JSON.stringify([
            { query: '{ viewer { role } }' },
            { query: '{ viewer { role } }' },
          ]),
        },
      ],
      ['$gt in body', teams(admin, '{"team_id": {"$gt": ""}, "name": "x"}')],
      [
        '__proto__ in body',
        teams(admin, '{"team_id": "p", "name": "x", "__proto__": {"polluted": true}}'),
      ],
      ['malformed JSON', teams(admin, '{"team_id": "p", ')],
      [
        'alg none token',
        teams(
          { authorization: 'Bearer eyJhbGciOiJub25lIn0.e30.', 'content-type': 'application/json' },
          '{"team_id":"t","name":"n"}',
        ),
      ],
      ['member creating a team', teams(member, JSON.stringify({ team_id: 'nope', name: 'Nope' }))],
    ];
    const teamsBefore = await teamCount(target);
    const url = target.url;
    const validRun = autocannonRun({ url, connections: 8, duration: 3600, requests: valid });
    // One autocannon instance per hostile request, one connection each, so statuses are
    // attributed per request (a shared list is attributed per connection only).
    const hostileRuns = hostile.map(([, request]) =>
      autocannonRun({ url, connections: 1, duration: 3600, requests: [request] }),
    );
    return {
      async stop() {
        for (const run of [validRun, ...hostileRuns]) run.stop();
        const validResult = await validRun.result;
        const hostileResults = await Promise.all(hostileRuns.map((run) => run.result));
        const teamsAfter = await teamCount(target);
        const fivexx = [validResult, ...hostileResults].reduce((sum, r) => sum + r['5xx'], 0);
        const lines = [
          `valid: ${validResult.requests.total} (${statuses(validResult)}), p99 ${validResult.latency.p99} ms (p50 ${validResult.latency.p50} ms)`,
          ...hostile.map(
            ([name], i) =>
              `${name.padEnd(24)}${hostileResults[i]!.requests.total} (${statuses(hostileResults[i]!)})`,
          ),
          `5xx answers: ${fivexx}; teams before ${teamsBefore}, after ${teamsAfter} (more: a hostile write)`,
        ];
        const ok =
          fivexx === 0 &&
          teamsAfter === teamsBefore &&
          validResult.errors === 0 &&
          hostileResults.every((r) => r['2xx'] === 0);
        return { lines, ok };
      },
    };
  },
};

/** Connections each attack keeps busy, one request after another on each. */
const FLOOD_CONNECTIONS = 2;

/** One request of a flood, built beforehand so that the client does little work per request. */
interface FloodRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

/** Answers by HTTP status; 0 counts requests whose connection failed. */
type Answers = Map<number, number>;

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

/** Sends `requests` round-robin on FLOOD_CONNECTIONS connections until `stopped()`. */
async function flood(
  target: Target,
  requests: FloodRequest[],
  stopped: () => boolean,
): Promise<Answers> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: FLOOD_CONNECTIONS });
  const answers: Answers = new Map();
  let next = 0;
  const connection = async (): Promise<void> => {
    while (!stopped()) {
      const status = await sendFloodRequest(agent, target.port, requests[next++ % requests.length]);
      answers.set(status, (answers.get(status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: FLOOD_CONNECTIONS }, connection));
  agent.destroy();
  return answers;
}

const asMember = (target: Target): Record<string, string> => ({
  authorization: `Bearer ${target.memberToken}`,
  'content-type': 'application/json',
});

/**
 * 80 000 keys in one JSON object (about 750 KB), as a member: to the import, which the role gate
 * refuses; as the JSON body of a read every role may call, whose body limit refuses it; and as a
 * declared GraphQL variable, which /graphql reads and refuses from its key count.
 */
async function wideBodyAttack(target: Target, stopped: () => boolean): Promise<Answers> {
  const wide = Object.fromEntries(
    Array.from({ length: 80_000 }, (_, i) => [`k${i.toString(36)}`, 0]),
  );
  const body = Buffer.from(JSON.stringify(wide));
  const variable = Buffer.from(
    JSON.stringify({
      query: 'mutation ($input: CreateTeamInput!) { createTeam(input: $input) { id } }',
      variables: { input: wide },
    }),
  );
  const headers = asMember(target);
  return flood(
    target,
    [
      { method: 'POST', path: '/crm/imports', headers, body },
      { method: 'GET', path: '/teams/members', headers, body },
      { method: 'POST', path: '/graphql', headers, body: variable },
    ],
    stopped,
  );
}

/** About 900 KB of variables the operation does not declare, over 50 documents, as a member. */
async function unusedVariablesAttack(target: Target, stopped: () => boolean): Promise<Answers> {
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
  return flood(target, requests, stopped);
}

/** JSON nested 10 000 levels deep, as a member: a REST body and a GraphQL variable. */
async function deepNestingAttack(target: Target, stopped: () => boolean): Promise<Answers> {
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
    stopped,
  );
}

/** Paths no route matches, each 8 KB long, without a token. */
async function notFoundFloodAttack(target: Target, stopped: () => boolean): Promise<Answers> {
  const requests = Array.from({ length: 100 }, (_, i) => ({
    method: 'GET',
    path: `/no-such-route/${i}/${'x'.repeat(8_000)}`,
    headers: {},
  }));
  return flood(target, requests, stopped);
}

/** A flood (above) as an attack of the table: its answers by status, and no 5xx. */
function floodAttack(
  name: string,
  send: (target: Target, stopped: () => boolean) => Promise<Answers>,
): Attack {
  return {
    name,
    async start(target) {
      let stopped = false;
      const answers = send(target, () => stopped);
      return {
        async stop() {
          stopped = true;
          const tally = await answers;
          const byStatus = [...tally.entries()]
            .sort(([a], [b]) => a - b)
            .map(([status, count]) => `${status === 0 ? 'failed' : status}: ${count}`)
            .join(', ');
          const serverErrors = [...tally.entries()].filter(([status]) => status >= 500);
          return { lines: [`answers by status: ${byStatus}`], ok: serverErrors.length === 0 };
        },
      };
    },
  };
}

const ATTACKS: Attack[] = [
  slowloris,
  hostileRequests,
  floodAttack('wide-body', wideBodyAttack),
  floodAttack('unused-variables', unusedVariablesAttack),
  floodAttack('deep-nesting', deepNestingAttack),
  floodAttack('long-404s', notFoundFloodAttack),
];

async function teamCount(target: Target): Promise<number> {
  const response = await fetch(`${target.url}/teams`, {
    headers: { authorization: `Bearer ${target.adminToken}` },
  });
  return ((await response.json()) as { teams: unknown[] }).teams.length;
}

/** GET /healthz on a new connection: milliseconds, or null for no 200 within 5 s. */
function probe(port: number): Promise<number | null> {
  const started = performance.now();
  return new Promise((resolve) => {
    const request = http.get(
      { host: '127.0.0.1', port, path: '/healthz', agent: false, timeout: 5_000 },
      (response) => {
        response.resume();
        response.on('end', () =>
          resolve(response.statusCode === 200 ? performance.now() - started : null),
        );
      },
    );
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(null));
  });
}

function askLoad(child: ChildProcess): Promise<GatewayLoad> {
  return new Promise((resolve) => {
    child.on('message', function onLoad(message: GatewayAnswer) {
      if (message.type !== 'load') return;
      child.off('message', onLoad);
      resolve(message);
    });
    child.send({ type: 'load' });
  });
}

/** Resident memory of a process now (Linux /proc). */
function rssBytes(pid: number): number {
  const pages = Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]);
  return pages * 4096;
}

interface Figures {
  peakRssBytes: number;
  loopDelayP99Ms: number;
  healthzP50Ms: number | null;
  healthzP99Ms: number | null;
  probes: number;
  failedProbes: number;
}

/** Probes /healthz every 100 ms for `seconds` while the gateway's memory is sampled. */
async function measure(child: ChildProcess, port: number, seconds: number): Promise<Figures> {
  await askLoad(child); // the loop delay is counted from here
  let peakRssBytes = 0;
  const sampler = setInterval(() => {
    peakRssBytes = Math.max(peakRssBytes, rssBytes(child.pid!));
  }, 250);
  const probes: Array<Promise<number | null>> = [];
  const until = Date.now() + seconds * 1000;
  while (Date.now() < until) {
    probes.push(probe(port));
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const times = await Promise.all(probes);
  clearInterval(sampler);
  const { loopDelayP99Ms } = await askLoad(child);
  const answered = times.filter((t): t is number => t !== null).sort((a, b) => a - b);
  const percentile = (p: number): number | null =>
    answered.length > 0
      ? answered[Math.min(answered.length - 1, Math.floor(p * answered.length))]!
      : null;
  return {
    peakRssBytes: Math.max(peakRssBytes, rssBytes(child.pid!)),
    loopDelayP99Ms,
    healthzP50Ms: percentile(0.5),
    healthzP99Ms: percentile(0.99),
    probes: times.length,
    failedProbes: times.length - answered.length,
  };
}

function table(columns: Array<[string, Figures]>): string[] {
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
  const ms = (value: number | null) => (value === null ? 'n/a' : `${value.toFixed(1)} ms`);
  const rows: Array<[string, (f: Figures) => string]> = [
    ['gateway RSS (peak)', (f) => mb(f.peakRssBytes)],
    ['event-loop delay p99', (f) => ms(f.loopDelayP99Ms)],
    ['/healthz p50', (f) => ms(f.healthzP50Ms)],
    ['/healthz p99', (f) => ms(f.healthzP99Ms)],
    ['/healthz failed', (f) => `${f.failedProbes} of ${f.probes}`],
  ];
  const width = 22;
  return [
    ''.padEnd(width) + columns.map(([name]) => name.padStart(18)).join(''),
    ...rows.map(
      ([label, cell]) =>
        label.padEnd(width) + columns.map(([, f]) => cell(f).padStart(18)).join(''),
    ),
  ];
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '15' },
      attacks: { type: 'string', default: ATTACKS.map((a) => a.name).join(',') },
    },
  });
  const seconds = Number(values.seconds);
  const chosen = values.attacks.split(',').map((name) => {
    const attack = ATTACKS.find((a) => a.name === name.trim());
    if (!attack)
      throw new Error(`--attacks takes ${ATTACKS.map((a) => a.name).join(', ')}; got "${name}"`);
    return attack;
  });
  const { child, ready } = await start<GatewayReady>('gateway-server.js');
  const member = ready.memberTokens.find((t) => t.role === 'member');
  if (!member) throw new Error('the demo company has no member-role member');
  const target: Target = {
    port: ready.port,
    url: `http://127.0.0.1:${ready.port}`,
    adminToken: ready.adminToken,
    memberToken: member.token,
  };
  try {
    const columns: Array<[string, Figures]> = [
      ['idle', await measure(child, target.port, seconds)],
    ];
    const reports: string[] = [];
    let ok = true;
    for (const attack of chosen) {
      const running = await attack.start(target);
      const figures = await measure(child, target.port, seconds);
      const outcome = await running.stop();
      columns.push([attack.name, figures]);
      reports.push(`${attack.name}:`, ...outcome.lines.map((line) => `  ${line}`));
      ok &&= outcome.ok;
      // The gateway settles (attack connections close) before the next run.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    }
    console.log(
      `abuse bench: ${seconds} s per run; gateway in its own process (embedded demo company); ` +
        '/healthz probed every 100 ms on a new connection from 127.0.0.1',
    );
    for (const line of table(columns)) console.log(line);
    for (const line of reports) console.log(line);
    if (!ok) process.exitCode = 1;
  } finally {
    await stop(child);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
