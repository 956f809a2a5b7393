/**
 * The mutable collections whose writes readers must see: each has a counter in the versions
 * document (versions-document.ts), and every cache of data read from one is valid only while
 * that counter stands still. Committed snapshots' definitions, pipelines, opportunities and facts
 * never change once committed, so they have none: only "which snapshots exist" does
 * (`pipeline_snapshots`), and whether a committed snapshot was removed by retention
 * (`pruned_snapshots`), which every read of a snapshot by id depends on. `tokens` holds the records
of issued member tokens, which authentication checks on every request; its counter also moves
when the admin token stored in `gateway_secrets` is rotated (src/auth/secrets.ts).
`forecast_submissions` holds the forecast calls members, managers and admins submit.
 */
export const SCOPES = [
  'settings',
  'members',
  'teams',
  'targets',
  'pipeline_snapshots',
  'crm_owner_links',
  'pruned_snapshots',
  'tokens',
  'forecast_submissions',
] as const;

export type Scope = (typeof SCOPES)[number];

/**
 * The version of every scope as of one moment (VersionClock): equal versions of a scope in two
 * views mean its data was the same in both. `id` names the whole vector: two views with the same
 * id hold the same versions of every scope.
 */
export interface VersionView {
  readonly id: number;
  readonly versions: Readonly<Record<Scope, number>>;
}

/** Counters as stored: a scope never written has no field yet and counts as 0. */
export function countersOf(
  doc: Partial<Record<string, unknown>> | null | undefined,
): Record<Scope, number> {
  const counters = {} as Record<Scope, number>;
  for (const scope of SCOPES) {
    const value = doc?.[scope];
    counters[scope] = typeof value === 'number' ? value : 0;
  }
  return counters;
}
