/**
 * Two gateway processes on one database (`MONGODB_URI` to a store process, as two instances behind
 * a load balancer would run): a write answered by one instance is visible in the other's very next
 * read, whatever either keeps in its caches. 1000 write/read pairs, the writer alternating between
 * the instances, over settings, targets (and the metric and time series derived from them),
 * members (create, move, delete; single reads, team lists, a member's pipelines) and imports.
 * Both instances first read everything the writes change; then, before each write, the reader
 * reads what the write will change, so a value it keeps would be served again if nothing told it
 * about the write.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEntry, type RunningEntry } from '../helpers/entry';
import { startStoreProcess, withDatabase, type StoreProcess } from '../helpers/store-process';
import { MAIN_FIXTURE, toImportBody } from '../pipelines/fixtures/crm-fixture';
import { expectedMetrics, type Window } from '../pipelines/support/expected';

const PAIRS = 1000;
const ADMIN_TOKEN = `raw-admin-${randomBytes(16).toString('hex')}`;
const JWT_SECRET = randomBytes(32).toString('base64url');

type Name = 'A' | 'B';
interface Instance {
  name: Name;
  url: string;
  entry: RunningEntry;
}
interface Answer {
  status: number;
  body: any;
}

// Keep-alive connections: 3000 requests on a few sockets, not 3000 connections.
const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

function call(instance: Instance, method: string, route: string, body?: unknown): Promise<Answer> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = { authorization: `Bearer ${ADMIN_TOKEN}` };
  if (payload !== undefined)
    Object.assign(headers, {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(payload)),
    });
  return new Promise((resolve, reject) => {
    const req = http.request(`${instance.url}${route}`, { method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        try {
          resolve({ status: res.statusCode ?? 0, body: text === '' ? null : JSON.parse(text) });
        } catch (error) {
          reject(error);
        }
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** A request that must answer 200 (the writes): anything else stops the test, naming the request and the answer. */
async function ok(instance: Instance, method: string, route: string, body?: unknown): Promise<any> {
  const answer = await call(instance, method, route, body);
  if (answer.status !== 200) {
    throw new Error(
      `${method} ${route} on ${instance.name} answered ${answer.status}: ${JSON.stringify(answer.body)}\n${instance.name}'s log:\n${instance.entry.output().slice(-4000)}`,
    );
  }
  return answer.body;
}

async function graphql(
  instance: Instance,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<any> {
  const answer = await call(instance, 'POST', '/graphql', { query, variables });
  if (answer.status !== 200 || answer.body.errors)
    throw new Error(
      `GraphQL on ${instance.name} answered ${answer.status}: ${JSON.stringify(answer.body)}`,
    );
  return answer.body.data;
}

/** One read: what it observed, reduced to what the write decides. */
interface Read {
  what: string;
  run(reader: Instance): Promise<unknown>;
  expected: unknown;
}

interface Pair {
  kind: string;
  /** Reads that must show the write; one per pair is checked, each in turn. */
  reads: Read[];
  write(writer: Instance): Promise<void>;
}

// The fixture's snapshots are taken on 2026-05-20 (its deals close around it); Ada owns deals in
// the sales pipeline, so her member pipeline has metrics derived from her targets.
const SNAPSHOT_DAY = '2026-05-20';
const PERIODS = {
  quarterly: {
    count: 4,
    index: 1,
    label: 'Q2',
    window: { start: '2026-04-01', end: '2026-06-30' },
  },
  monthly: { count: 12, index: 4, label: 'm5', window: { start: '2026-05-01', end: '2026-05-31' } },
} satisfies Record<string, { count: number; index: number; label: string; window: Window }>;
type Period = keyof typeof PERIODS;

/** A time series (it ends with the current period) long enough to reach back to the snapshot's period. */
function durationCovering(period: Period): number {
  const now = new Date();
  const years = now.getUTCFullYear() - 2026;
  // Whole periods from the snapshot's (May, the second quarter) to the current one; the series
  // holds both ends, and one more to spare.
  const between =
    period === 'monthly'
      ? years * 12 + now.getUTCMonth() - 4
      : years * 4 + Math.floor(now.getUTCMonth() / 3) - 1;
  return Math.min(104, Math.max(1, between + 2));
}

const CURRENCIES = ['EUR', 'USD', 'GBP', 'SEK', 'CHF', 'NOK', 'DKK'];

// The writes in turn; odd in length, so that each kind is written by both instances (the writer
// alternates). One import in 25 pairs: imports are the slowest writes.
const SCHEDULE = [
  'currency',
  'targets',
  'member',
  'currency',
  'targets',
  'moveImported',
  'member',
  'targets',
  'period',
  'member',
  'currency',
  'targets',
  'member',
  'moveImported',
  'targets',
  'currency',
  'member',
  'targets',
  'period',
  'member',
  'targets',
  'currency',
  'member',
  'targets',
  'import',
] as const;

let store: StoreProcess;
let scratch: string;
let a: Instance;
let b: Instance;
let ada: string;
let grace: string;
let alan: string;

beforeAll(async () => {
  scratch = mkdtempSync(path.join(tmpdir(), 'read-after-write-'));
  store = await startStoreProcess();
  const env = {
    MONGODB_URI: withDatabase(store.uri, 'read-after-write'),
    JWT_SECRET,
    ADMIN_TOKEN,
    RATE_LIMIT: '0',
    SEED_DEMO: 'false',
    // Unexpected errors are logged, so a failed write shows why (ok()).
    LOG_LEVEL: 'error',
  };
  const started = await Promise.allSettled([
    startEntry(path.join(scratch, 'a'), env),
    startEntry(path.join(scratch, 'b'), env),
  ]);
  if (started[0].status === 'fulfilled')
    a = { name: 'A', url: started[0].value.url, entry: started[0].value };
  if (started[1].status === 'fulfilled')
    b = { name: 'B', url: started[1].value.url, entry: started[1].value };
  for (const outcome of started) if (outcome.status === 'rejected') throw outcome.reason;
  await ok(a, 'POST', '/settings/currencies', { currency: 'EUR' });
  await ok(b, 'POST', '/settings/periods', { period: 'quarterly' });
  await ok(a, 'POST', '/crm/imports', toImportBody(MAIN_FIXTURE, `${SNAPSHOT_DAY}T12:00:00Z`));
  const members = (await ok(b, 'GET', '/teams/members?limit=100')).members as Array<{
    member_id: string;
    email: string;
  }>;
  ada = members.find((m) => m.email === 'ada@example.com')!.member_id;
  grace = members.find((m) => m.email === 'grace@example.com')!.member_id;
  alan = members.find((m) => m.email === 'alan@example.com')!.member_id;
}, 60_000);

afterAll(async () => {
  agent.destroy(); // idle keep-alive sockets would hold up the instances' graceful shutdown
  await Promise.all(
    [a, b].filter(Boolean).map(async ({ entry }) => {
      entry.child.kill('SIGTERM');
      await entry.exited;
    }),
  );
  await store?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

// About 25 s on 2 busy vCPUs: 3000 requests through three processes, nearly every read the first
// after a write (nothing kept can answer it). The time-out leaves room for a slower, busier CI.
it(`shows every write answered by one instance in the other's very next read (${PAIRS} pairs, both ways)`, async () => {
  // The state the writes lead to, as the test knows it.
  let period: Period = 'quarterly';
  let currency = 'EUR';
  let imports = 0;
  let probe: { id: string; team: string } | null = null;
  let probes = 0;
  let graceTeam = 'east';

  const targetsOfAda = (reader: Instance) =>
    call(reader, 'GET', `/teams/members/${ada}/targets?year=2026`);
  const teamList = (team: string) => async (reader: Instance) =>
    (
      (await call(reader, 'GET', `/teams/members?team_id=${team}&limit=100`)).body
        .members as Array<{ member_id: string }>
    )
      .map((m) => m.member_id)
      .sort();
  const teamListGraphql = (team: string) => async (reader: Instance) =>
    (
      (
        await graphql(
          reader,
          'query($id: ID!) { team(id: $id) { members(first: 100) { edges { node { id } } } } }',
          { id: team },
        )
      ).team.members.edges as Array<{ node: { id: string } }>
    )
      .map((edge) => edge.node.id)
      .sort();
  // The fixture's owners: Ada and Grace in east, Alan in west; Ada and Alan never move.
  const expectedTeam = (team: string) => () =>
    [
      ...(team === 'east' ? [ada] : [alan]),
      ...(graceTeam === team ? [grace] : []),
      ...(probe !== null && probe.team === team ? [probe.id] : []),
    ].sort();

  const plan = (kind: (typeof SCHEDULE)[number], i: number): Pair => {
    switch (kind) {
      case 'currency': {
        const next = CURRENCIES[(CURRENCIES.indexOf(currency) + 1 + (i % 3)) % CURRENCIES.length];
        return {
          kind,
          write: async (writer) => {
            await ok(writer, 'POST', '/settings/currencies', { currency: next.toLowerCase() });
            currency = next;
          },
          reads: [
            {
              what: 'GET /settings/currencies',
              run: async (r) => (await call(r, 'GET', '/settings/currencies')).body.currency,
              expected: next,
            },
            {
              what: 'GET /pipelines/metrics pipeline_value (its unit is the currency)',
              run: async (r) =>
                (
                  await call(
                    r,
                    'GET',
                    '/pipelines/metrics?pipeline_id=sales&metrics=pipeline_value',
                  )
                ).body.metrics?.[0]?.metric_value.unit,
              expected: next,
            },
          ],
        };
      }
      case 'period': {
        const next: Period = period === 'quarterly' ? 'monthly' : 'quarterly';
        return {
          kind,
          write: async (writer) => {
            await ok(writer, 'POST', '/settings/periods', { period: next, reset_targets: true });
            period = next;
          },
          reads: [
            {
              what: 'GET /settings/periods',
              run: async (r) => {
                const { body } = await call(r, 'GET', '/settings/periods');
                return { period: body.period, values: body.values.length };
              },
              expected: { period: next, values: PERIODS[next].count },
            },
            // Changing the period deletes every target set.
            {
              what: "GET Ada's targets (deleted by the period change)",
              run: async (r) => (await targetsOfAda(r)).status,
              expected: 404,
            },
          ],
        };
      }
      case 'targets': {
        const { count, index, label, window } = PERIODS[period];
        const amounts = Array.from({ length: count }, (_, k) => 1000 * (k + 1));
        amounts[index] = 2000 + 250 * (i % 41);
        const quota = expectedMetrics(
          MAIN_FIXTURE,
          { definitionId: 'sales', owners: ['101'] },
          window,
          amounts[index],
        ).quota_attainment;
        const duration = durationCovering(period);
        return {
          kind,
          write: async (writer) =>
            void (await ok(writer, 'POST', `/teams/members/${ada}/targets`, {
              year: 2026,
              targets: amounts,
            })),
          reads: [
            {
              what: "GET Ada's targets",
              run: async (r) =>
                (
                  (await targetsOfAda(r)).body.targets as Array<{ amount: number }> | undefined
                )?.map((t) => t.amount),
              expected: amounts,
            },
            {
              what: "GET /pipelines/metrics quota_attainment of Ada's pipeline",
              run: async (r) =>
                (
                  await call(
                    r,
                    'GET',
                    `/pipelines/metrics?pipeline_id=sales.member.${ada}&metrics=quota_attainment`,
                  )
                ).body.metrics?.[0]?.metric_value.value,
              expected: quota,
            },
            {
              what: `GraphQL timeseries quota_attainment of Ada's pipeline, ${label} 2026`,
              run: async (r) => {
                const data = await graphql(
                  r,
                  'query($id: ID!, $d: Int!) { pipeline(id: $id) { timeseries(metric: "quota_attainment", duration: $d) { points { period year value } } } }',
                  {
                    id: `sales.member.${ada}`,
                    d: duration,
                  },
                );
                const points = data.pipeline.timeseries.points as Array<{
                  period: string;
                  year: number;
                  value: number | null;
                }>;
                return (
                  points.find((p) => p.year === 2026 && p.period === label)?.value ??
                  `no ${label} 2026 point in ${JSON.stringify(points)}`
                );
              },
              expected: quota,
            },
          ],
        };
      }
      case 'member': {
        // One member at a time: created in east, moved to west, deleted; then the next one.
        if (probe === null) {
          const email = `probe-${probes + 1}@example.com`;
          // Unknown until the write answers (the id is generated): read before it as 'none'.
          let created = 'none';
          return {
            kind: 'member (create)',
            write: async (writer) => {
              created = (
                await ok(writer, 'POST', '/teams/members', {
                  lastname: 'Probe',
                  firstname: 'Pat',
                  email,
                  role: 'member',
                  memberOf: { team_id: 'east' },
                })
              ).member.member_id;
              probes += 1;
              probe = { id: created, team: 'east' };
            },
            reads: [
              {
                what: 'GET /teams/members?team_id=east',
                run: teamList('east'),
                get expected() {
                  return expectedTeam('east')();
                },
              },
              {
                what: 'GET /teams/members/{new member}',
                run: async (r) => {
                  const { status, body } = await call(r, 'GET', `/teams/members/${created}`);
                  return { status, email: body.member?.email, team: body.member?.memberOf.team_id };
                },
                get expected() {
                  return { status: 200, email, team: 'east' };
                },
              },
            ],
          };
        }
        const current = probe as { id: string; team: string };
        if (current.team === 'east') {
          return {
            kind: 'member (move)',
            write: async (writer) => {
              await ok(writer, 'POST', `/teams/members/${current.id}`, { team_id: 'west' });
              probe = { id: current.id, team: 'west' };
            },
            reads: [
              {
                what: 'GET /teams/members/{member} team',
                run: async (r) =>
                  (await call(r, 'GET', `/teams/members/${current.id}`)).body.member?.memberOf
                    .team_id,
                expected: 'west',
              },
              {
                what: 'GraphQL team(west).members',
                run: teamListGraphql('west'),
                get expected() {
                  return expectedTeam('west')();
                },
              },
              {
                what: 'GET /teams/members?team_id=east',
                run: teamList('east'),
                get expected() {
                  return expectedTeam('east')();
                },
              },
            ],
          };
        }
        return {
          kind: 'member (delete)',
          write: async (writer) => {
            await ok(writer, 'DELETE', `/teams/members/${current.id}`);
            probe = null;
          },
          reads: [
            {
              what: 'GET /teams/members/{deleted member}',
              run: async (r) => (await call(r, 'GET', `/teams/members/${current.id}`)).status,
              expected: 404,
            },
            {
              what: 'GET /teams/members?team_id=west',
              run: teamList('west'),
              get expected() {
                return expectedTeam('west')();
              },
            },
          ],
        };
      }
      case 'moveImported': {
        // Grace owns deals: her pipeline's member, and her own pipelines, are read through her.
        const next = graceTeam === 'east' ? 'west' : 'east';
        return {
          kind,
          write: async (writer) => {
            await ok(writer, 'POST', `/teams/members/${grace}`, { team_id: next });
            graceTeam = next;
          },
          reads: [
            {
              what: "GraphQL Grace's team and pipelines, and her pipeline's member's team",
              run: async (r) => {
                const data = await graphql(
                  r,
                  'query($m: ID!, $p: ID!) { member(id: $m) { team { id } pipelines { id } } pipeline(id: $p) { member { team { id } } } }',
                  {
                    m: grace,
                    p: `sales.member.${grace}`,
                  },
                );
                return {
                  team: data.member.team.id,
                  pipelines: data.member.pipelines.map((p: { id: string }) => p.id),
                  viaPipeline: data.pipeline.member.team.id,
                };
              },
              expected: { team: next, pipelines: [`sales.member.${grace}`], viaPipeline: next },
            },
            {
              what: 'GET /teams/members?team_id=<her new team>',
              run: teamList(next),
              get expected() {
                return expectedTeam(next)();
              },
            },
          ],
        };
      }
      case 'import': {
        // Later imports are later snapshots of the same company.
        const at = new Date(
          Date.parse(`${SNAPSHOT_DAY}T12:00:00Z`) + (imports + 1) * 60_000,
        ).toISOString();
        let snapshotId = '';
        return {
          kind,
          write: async (writer) => {
            snapshotId = (await ok(writer, 'POST', '/crm/imports', toImportBody(MAIN_FIXTURE, at)))
              .snapshot_id;
            imports += 1;
          },
          reads: [
            {
              what: 'GET /pipelines snapshot_id',
              run: async (r) => (await call(r, 'GET', '/pipelines')).body.snapshot_id,
              get expected() {
                return snapshotId;
              },
            },
            {
              what: 'GraphQL snapshot { id }',
              run: async (r) => (await graphql(r, '{ snapshot { id } }')).snapshot.id,
              get expected() {
                return snapshotId;
              },
            },
          ],
        };
      }
    }
  };

  // Both instances' caches warmed with every read first (planning writes nothing).
  for (const instance of [a, b]) {
    for (const kind of new Set(SCHEDULE))
      for (const read of plan(kind, 0).reads) await read.run(instance);
  }

  const stale: Array<{
    pair: number;
    kind: string;
    writer: Name;
    read: string;
    expected: unknown;
    got: unknown;
  }> = [];
  // How many times each read was checked after a write by each instance.
  const checked: Record<string, Record<Name, number>> = {};
  const occurrences: Record<string, number> = {};
  const started = performance.now();
  for (let i = 0; i < PAIRS; i += 1) {
    const [writer, reader] = i % 2 === 0 ? [a, b] : [b, a];
    const kind = SCHEDULE[i % SCHEDULE.length];
    const pair = plan(kind, i);
    // One read per pair, taken in turn for each writer (so each read is checked after writes by
    // both instances): the reader reads it (and keeps what it may keep), the writer writes, the
    // reader reads it again.
    const turn = `${pair.kind} ${writer.name}`;
    occurrences[turn] = (occurrences[turn] ?? -1) + 1;
    const read = pair.reads[occurrences[turn] % pair.reads.length];
    await read.run(reader);
    await pair.write(writer);
    const got = await read.run(reader);
    if (JSON.stringify(got) !== JSON.stringify(read.expected))
      stale.push({
        pair: i,
        kind: pair.kind,
        writer: writer.name,
        read: read.what,
        expected: read.expected,
        got,
      });
    const key = `${pair.kind}: ${read.what}`;
    checked[key] ??= { A: 0, B: 0 };
    checked[key][writer.name] += 1;
  }
  const seconds = (performance.now() - started) / 1000;
  const reads = Object.values(checked).reduce((sum, by) => sum + by.A + by.B, 0);
  process.stdout.write(
    `read-after-write: ${PAIRS} pairs in ${seconds.toFixed(1)} s, ${Object.keys(checked).length} kinds of read checked ${reads} times, ${stale.length} stale\n`,
  );

  // Every read was checked after writes on both instances.
  const oneWay = Object.entries(checked).filter(([, by]) => by.A === 0 || by.B === 0);
  expect(oneWay).toEqual([]);
  expect({ stale: stale.length, first: stale.slice(0, 8) }).toEqual({ stale: 0, first: [] });
}, 120_000);
