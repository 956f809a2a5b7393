/**
 * Load run: valid traffic alone, then the same valid traffic beside a flood of hostile requests
 * (deep and wide queries, alias and directive floods, introspection as a member, malformed JSON,
 * operator injection, bad tokens; oversized bodies are left to test/security: autocannon's
 * pipelined client cannot read a 413 sent before the body was consumed), on loopback. Prints requests served, answers
 * by status, the 5xx count (must be 0), p99 of the valid requests alone and under abuse, and
 * memory before and after. `npm run bench:abuse [-- --duration S --connections N]`. Exits 1 on any 5xx.
 */
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

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
