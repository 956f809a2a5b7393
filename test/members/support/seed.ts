import { randomUUID } from 'node:crypto';
import type { TestGateway } from '../../helpers/gateway';

/** A member as the REST layer renders it. */
export interface RestMember {
  member_id: string;
  lastname: string;
  firstname: string;
  email: string;
  role: 'admin' | 'manager' | 'member';
  memberOf: { team_id: string };
}

/** Creates a team as the admin; fails the test loudly if the gateway refuses. */
export async function seedTeam(
  gw: TestGateway,
  teamId: string,
  name = `Team ${teamId}`,
): Promise<string> {
  const res = await gw.request('POST', '/teams', { body: { team_id: teamId, name } });
  if (res.status !== 200)
    throw new Error(`seedTeam ${teamId}: ${res.status} ${JSON.stringify(res.body)}`);
  return teamId;
}

/** Creates a member as the admin (unique e-mail unless given) and returns it as REST renders it. */
export async function seedMember(
  gw: TestGateway,
  teamId: string,
  role: RestMember['role'] = 'member',
  overrides: Partial<{ firstname: string; lastname: string; email: string }> = {},
): Promise<RestMember> {
  const body = {
    firstname: overrides.firstname ?? 'Ada',
    lastname: overrides.lastname ?? 'Lovelace',
    email: overrides.email ?? `${role}-${randomUUID()}@example.com`,
    role,
    memberOf: { team_id: teamId },
  };
  const res = await gw.request('POST', '/teams/members', { body });
  if (res.status !== 200) throw new Error(`seedMember: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.member as RestMember;
}

/** Sets currency and period as the admin. */
export async function seedSettings(
  gw: TestGateway,
  currency = 'EUR',
  period = 'quarterly',
): Promise<void> {
  for (const [path, body] of [
    ['/settings/currencies', { currency }],
    ['/settings/periods', { period, reset_targets: true }],
  ] as const) {
    const res = await gw.request('POST', path, { body });
    if (res.status !== 200)
      throw new Error(`seedSettings ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  }
}
