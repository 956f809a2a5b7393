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

const { values } = parseArgs({ options: { duration: { type: 'string', default: '10' }, connections: { type: 'string', default: '8' } } });
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
  const gw = await startGateway({ env: { BODY_LIMIT: '65536' } });
  for (let i = 0; i < 20; i += 1) await gw.request('POST', '/teams', { body: { team_id: `team-${i}`, name: `Team ${i}` } });
  const memberToken = await gw.tokenFor(await insertMember(Role.MEMBER, 'team-1'));
  const admin = { authorization: `Bearer ${gw.adminToken}`, 'content-type': 'application/json' };
  const member = { authorization: `Bearer ${memberToken}`, 'content-type': 'application/json' };

  const valid: autocannon.Request[] = [
    { method: 'POST', path: '/graphql', headers: admin, body: JSON.stringify({ query: '{ viewer { role } teams { id name } }' }) },
    { method: 'GET', path: '/teams', headers: admin },
    { method: 'POST', path: '/graphql', headers: member, body: JSON.stringify({ query: '{ members(first: 20) { edges { node { id firstname team { name } } } } }' }) },
  ];
  const nested = (inner: string) => `{ teams { members { edges { node { team { ${inner} } } } } } }`;
  const hostile: autocannon.Request[] = [
    { method: 'POST', path: '/graphql', headers: admin, body: JSON.stringify({ query: nested('pipelines { id }') }) },
    { method: 'POST', path: '/graphql', headers: admin, body: JSON.stringify({ query: `{ ${Array.from({ length: 40 }, (_, i) => `a${i}: teams { id }`).join(' ')} }` }) },
    { method: 'POST', path: '/graphql', headers: admin, body: JSON.stringify({ query: `{ ${Array.from({ length: 1200 }, () => '__typename').join(' ')} }` }) },
    { method: 'POST', path: '/graphql', headers: admin, body: JSON.stringify({ query: `{ viewer { ${Array.from({ length: 60 }, () => 'role @include(if: true)').join(' ')} } }` }) },
    { method: 'POST', path: '/graphql', headers: admin, body: JSON.stringify({ query: '{ teams { members(first: 100) { edges { node { id email pipelines { id } } } } } }' }) },
    { method: 'POST', path: '/graphql', headers: member, body: JSON.stringify({ query: '{ __schema { types { name fields { name } } } }' }) },
    { method: 'POST', path: '/graphql', headers: admin, body: JSON.stringify([{ query: '{ viewer { role } }' }, { query: '{ viewer { role } }' }]) },
    { method: 'POST', path: '/teams', headers: admin, body: '{"team_id": {"$gt": ""}, "name": "x"}' },
    { method: 'POST', path: '/teams', headers: admin, body: '{"team_id": "p", "name": "x", "__proto__": {"polluted": true}}' },
    { method: 'POST', path: '/teams', headers: admin, body: '{"team_id": "p", ' },
    // Every hostile request has a body: autocannon otherwise carries the previous request's body and headers over.
    { method: 'POST', path: '/teams', headers: { authorization: 'Bearer eyJhbGciOiJub25lIn0.e30.', 'content-type': 'application/json' }, body: '{"team_id":"t","name":"n"}' },
    { method: 'POST', path: '/teams', headers: member, body: JSON.stringify({ team_id: 'nope', name: 'Nope' }) },
  ];

  const url = gw.url;
  global.gc?.();
  const before = process.memoryUsage();
  const alone = await run({ url, connections, duration, requests: valid });
  const [underAbuse, abuse] = await Promise.all([
    run({ url, connections, duration, requests: valid }),
    run({ url, connections: connections * 2, duration, requests: hostile }),
  ]);
  global.gc?.();
  const after = process.memoryUsage();
  const polluted = ({} as Record<string, unknown>).polluted;
  // autocannon attributes answers per connection, not per request of the list, so the hostile
  // column is only indicative; what matters is checked here: no hostile request wrote anything.
  const teams = (await gw.request('GET', '/teams')).body.teams as unknown[];
  await gw.stop();

  const statuses = (result: autocannon.Result) =>
    Object.entries((result as unknown as { statusCodeStats?: Record<string, { count: number }> }).statusCodeStats ?? {})
      .map(([code, { count }]) => `${code}×${count}`)
      .join(' ');
  const fivexx = alone['5xx'] + underAbuse['5xx'] + abuse['5xx'];
  console.log(`abuse bench: ${duration} s per phase, ${connections} valid connections, ${connections * 2} hostile (in-process gateway, loopback)`);
  console.log(`requests served:        ${alone.requests.total + underAbuse.requests.total + abuse.requests.total}`);
  console.log(`  valid alone:          ${alone.requests.total} (${statuses(alone)})`);
  console.log(`  valid under abuse:    ${underAbuse.requests.total} (${statuses(underAbuse)})`);
  console.log(`  hostile:              ${abuse.requests.total} (${statuses(abuse)})`);
  console.log(`5xx answers:            ${fivexx}`);
  console.log(`valid p99 alone:        ${alone.latency.p99} ms (p50 ${alone.latency.p50} ms)`);
  console.log(`valid p99 under abuse:  ${underAbuse.latency.p99} ms (p50 ${underAbuse.latency.p50} ms)`);
  console.log(`memory before: rss ${mb(before.rss)}, heap ${mb(before.heapUsed)}; after: rss ${mb(after.rss)}, heap ${mb(after.heapUsed)}`);
  console.log(`prototype polluted:     ${polluted === undefined ? 'no' : 'YES'}`);
  console.log(`teams after the run:    ${teams.length} (20 created before; more means a hostile write)`);
  if (teams.length !== 20 || fivexx > 0 || polluted !== undefined || alone.errors + underAbuse.errors > 0) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
