/**
 * GraphQL subscriptions over a real WebSocket (graphql-ws): the token in connection_init, events
 * filtered by type, pipeline and what the caller may read, a deleted member losing the
 * subscription, the upgrade's origin checked. Both database modes.
 */
import { trusted } from 'mongoose';
import { EventModel } from '../../src/models/event.model';
import { startGateway, type TestGateway } from '../helpers/gateway';
import { MAIN_FIXTURE, toImportBody } from '../pipelines/fixtures/crm-fixture';
import { subscribe, type Subscriber } from './support/subscriber';

const EVENTS = `subscription($types: [String!], $pipelineId: ID) {
  events(types: $types, pipelineId: $pipelineId) { id type timestamp data }
}`;

let gateway: TestGateway;
let ada: { member_id: string; memberOf: { team_id: string } };
let grace: { member_id: string; memberOf: { team_id: string } };
let alan: { member_id: string; memberOf: { team_id: string } };
const open: Subscriber[] = [];

async function ok(method: string, path: string, body?: unknown): Promise<any> {
  const response = await gateway.request(method, path, { body });
  if (response.status !== 200)
    throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

async function subscriber(token: string, variables: Record<string, unknown> = {}) {
  const s = await subscribe(gateway.url, token, EVENTS, variables);
  open.push(s);
  return s;
}

beforeAll(async () => {
  gateway = await startGateway({ env: { EVENTS_POLL_MS: '50', RATE_LIMIT: '0' } });
  await ok('POST', '/settings/currencies', { currency: 'EUR' });
  await ok('POST', '/settings/periods', { period: 'quarterly' });
  await ok('POST', '/crm/imports', toImportBody(MAIN_FIXTURE, '2026-05-20T12:00:00Z'));
  // The import's snapshot.committed is published once the import has settled, after its answer:
  // in the outbox and read past before any test subscribes, so that no test receives it.
  while (!(await EventModel.exists({ type: 'snapshot.committed', seq: trusted({ $ne: null }) })))
    await new Promise((resolve) => setTimeout(resolve, 20));
  await new Promise((resolve) => setTimeout(resolve, 300));
  const { members } = await ok('GET', '/teams/members?limit=100');
  ada = members.find((m: any) => m.email === 'ada@example.com');
  grace = members.find((m: any) => m.email === 'grace@example.com');
  alan = members.find((m: any) => m.email === 'alan@example.com');
});
afterAll(async () => {
  await Promise.all(open.map((s) => s.stop().catch(() => undefined)));
  await gateway?.stop();
});

it('sends an admin the events of changes as they are committed', async () => {
  const admin = await subscriber(gateway.adminToken);
  await ok('POST', '/settings/currencies', { currency: 'USD' });
  await admin.waitFor((items) => items.length === 1);
  expect(admin.items[0].events).toMatchObject({
    type: 'settings.updated',
    data: { currency: 'USD', changed: ['currency'] },
  });
  expect(admin.items[0].events.id).toMatch(/^evt_/);
  await ok('POST', '/settings/currencies', { currency: 'EUR' });
  await admin.waitFor((items) => items.length === 2);
});

it('filters by type, and gives target amounts only to whoever may read them', async () => {
  const adaToken = await gateway.tokenFor(ada.member_id);
  const graceToken = await gateway.tokenFor(grace.member_id);
  const alanToken = await gateway.tokenFor(alan.member_id);
  const asAda = await subscriber(adaToken, { types: ['target.updated'] });
  const asGrace = await subscriber(graceToken, { types: ['target.updated'] });
  const asAlan = await subscriber(alanToken, { types: ['target.updated'] });
  await ok('POST', '/settings/currencies', { currency: 'EUR' });
  await ok('POST', `/teams/members/${ada.member_id}/targets`, {
    year: 2026,
    targets: [10, 20, 30, 40],
  });
  for (const s of [asAda, asGrace, asAlan]) await s.waitFor((items) => items.length === 1);
  // Ada reads her own targets; Grace (a member of the same team) and Alan do not.
  expect(asAda.items[0].events.data.targets).toHaveLength(4);
  expect(asGrace.items[0].events.data).toEqual({
    member_id: ada.member_id,
    team_id: ada.memberOf.team_id,
    year: 2026,
    period: 'quarterly',
    currency: 'EUR',
  });
  expect(asAlan.items[0].events.data.targets).toBeUndefined();
  expect([asAda, asGrace, asAlan].every((s) => s.items.length === 1)).toBe(true);
});

it('filters by pipeline: events about another pipeline are left out, account-wide ones kept', async () => {
  const admin = await subscriber(gateway.adminToken, { pipelineId: 'renewals' });
  await ok('POST', '/teams/members', {
    lastname: 'Filter',
    firstname: 'Fay',
    email: 'fay.filter@example.com',
    role: 'member',
    memberOf: { team_id: 'east' },
  });
  await ok('POST', '/settings/currencies', { currency: 'GBP' });
  await admin.waitFor((items) => items.length === 1);
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(admin.items.map((i) => i.events.type)).toEqual(['settings.updated']);
});

it('refuses a connection without a valid token', async () => {
  await expect(subscribe(gateway.url, 'not-a-token', EVENTS)).rejects.toThrow(/4403/);
});

it('closes the subscription of a member who is deleted', async () => {
  const { member } = await ok('POST', '/teams/members', {
    lastname: 'Gone',
    firstname: 'Gil',
    email: 'gil.gone@example.com',
    role: 'member',
    memberOf: { team_id: 'east' },
  });
  const token = await gateway.tokenFor(member.member_id);
  const doomed = await subscriber(token);
  await ok('DELETE', `/teams/members/${member.member_id}`);
  const until = Date.now() + 5000;
  while (doomed.closed === null && Date.now() < until)
    await new Promise((resolve) => setTimeout(resolve, 50));
  expect(doomed.closed?.code).toBe(4403);
});

it('checks the origin of a browser upgrade as CORS does', async () => {
  await expect(
    subscribe(gateway.url, gateway.adminToken, EVENTS, {}, { origin: 'https://evil.example' }),
  ).rejects.toThrow();
  const own = await subscribe(gateway.url, gateway.adminToken, EVENTS, {}, { origin: gateway.url });
  open.push(own);
  expect(own.closed).toBeNull();
});

it('refuses an operation over the limits, and an unknown event type', async () => {
  const deep = await subscribe(
    gateway.url,
    gateway.adminToken,
    `subscription { events(types: ["nope.nope"]) { id } }`,
  );
  open.push(deep);
  await deep.waitFor(() => deep.errors.length > 0);
  expect((deep.errors[0] as { message: string }).message).toMatch(
    /^Unknown event type "nope.nope"/,
  );
  const aliases = Array.from({ length: 200 }, (_, i) => `a${i}: id`).join(' ');
  const wide = await subscribe(
    gateway.url,
    gateway.adminToken,
    `subscription { events { ${aliases} } }`,
  );
  open.push(wide);
  await wide.waitFor(() => wide.errors.length > 0);
  expect(JSON.stringify(wide.errors)).toMatch(/alias/i);
  // Variables are checked as over HTTP: an object wider than the key limit is refused from its
  // key count, before graphql-js coerces (and prints) it.
  const wideVariable = await subscribe(
    gateway.url,
    gateway.adminToken,
    'subscription ($types: [String!]) { events(types: $types) { id } }',
    { types: Object.fromEntries(Array.from({ length: 2_001 }, (_, i) => [`k${i}`, 0])) },
  );
  open.push(wideVariable);
  await wideVariable.waitFor(() => wideVariable.errors.length > 0);
  // An error before execution ends the subscription with graphql-ws's `error` message: the list.
  expect(wideVariable.errors).toEqual([
    [
      expect.objectContaining({
        message: 'Invalid arguments: types: expected at most 2000 keys in an object, got 2001',
        extensions: expect.objectContaining({ code: 'BAD_USER_INPUT' }),
      }),
    ],
  ]);
});
