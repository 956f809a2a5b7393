import type { Role } from '../auth/role';

/** What a forecast is about: the company, one team, or one member. */
export type ForecastScope =
  { kind: 'company' } | { kind: 'team'; teamId: string } | { kind: 'member'; memberId: string };

/** `company`, `team:<id>`, `member:<id>`: how the API names a scope. */
export function scopeName(scope: ForecastScope): string {
  switch (scope.kind) {
    case 'company':
      return 'company';
    case 'team':
      return `team:${scope.teamId}`;
    case 'member':
      return `member:${scope.memberId}`;
  }
}

/** The scope a name names, or null when it names none. */
export function parseScopeName(name: string): ForecastScope | null {
  if (name === 'company') return { kind: 'company' };
  const match = /^(team|member):(.+)$/.exec(name);
  if (!match) return null;
  return match[1] === 'team'
    ? { kind: 'team', teamId: match[2] }
    : { kind: 'member', memberId: match[2] };
}

/** One submitted call, as forecasts read it. */
export interface ForecastCall {
  id: string;
  period: string;
  /** The scope's name (`member:<id>`...). */
  scope: string;
  call: number;
  bestCase: number | null;
  note: string | null;
  submittedAt: Date;
  submittedBy: { subject: string; memberId: string | null; role: Role };
}

/** Calls in the order they count: by `submittedAt`, then by id (the order they were stored). */
export function compareCalls(a: ForecastCall, b: ForecastCall): number {
  return (
    a.submittedAt.getTime() - b.submittedAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}

/** The latest call of each scope, of calls in counting order. */
export function latestCalls(calls: readonly ForecastCall[]): Map<string, ForecastCall> {
  const latest = new Map<string, ForecastCall>();
  for (const call of calls) latest.set(call.scope, call);
  return latest;
}

/** The calls of each scope, in counting order, of calls in counting order. */
export function callsByScope(calls: readonly ForecastCall[]): Map<string, ForecastCall[]> {
  const byScope = new Map<string, ForecastCall[]>();
  for (const call of calls) {
    const list = byScope.get(call.scope);
    if (list) list.push(call);
    else byScope.set(call.scope, [call]);
  }
  return byScope;
}

/** The last of `calls` (in counting order) submitted before `at`, or null. */
export function lastCallBefore(calls: readonly ForecastCall[], at: Date): ForecastCall | null {
  let found: ForecastCall | null = null;
  for (const call of calls) {
    if (call.submittedAt.getTime() >= at.getTime()) break;
    found = call;
  }
  return found;
}
