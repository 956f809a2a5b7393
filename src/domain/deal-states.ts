/**
 * The deals of one pipeline definition in one committed snapshot, as columns in deal id order:
 * what movement, stage analytics and slipped deals read (docs/analytics.md), precomputed at import
 * (src/import/build-deal-states.ts) so that no answer reads opportunity versions. Index `i` is one
 * deal in every column; stages, members and teams are indexes into their own lists.
 */
export interface DealStates {
  snapshotId: string;
  definitionId: string;
  count: number;
  /** Deal ids, ascending (JavaScript string order, as the import sorts them). */
  ids: string[];
  /**
   * The ids as numbers when every one is made of the same number of digits (at most 15), as
   * HubSpot's are: then their order is the ids' order, and comparing numbers is cheaper than
   * comparing strings. `keyDigits` is that number of digits; 0 when the ids are not all such.
   */
  keys: Float64Array;
  keyDigits: number;
  /** Amount in the configured currency (0 when the deal has none). */
  amount: Float64Array;
  /** Close date in ms since the epoch; NaN when the deal has none. */
  close: Float64Array;
  /** Index into `stageIds`. */
  stage: Uint16Array;
  /** OUTCOME_CODES: 0 open, 1 won, 2 lost. */
  outcome: Uint8Array;
  /** Index into `memberIds`; -1: no member. */
  member: Int32Array;
  /** Index into `teamIds`; -1: no team. */
  team: Int32Array;
  stageIds: string[];
  memberIds: string[];
  teamIds: string[];
  /** Deal `i`'s stage entries are `[stageHistoryStart[i], stageHistoryStart[i + 1])`, oldest first. */
  stageHistoryStart: Uint32Array;
  /** Index into `stageIds`. */
  stageHistoryStage: Uint16Array;
  stageHistoryAt: Float64Array;
  /** Deal `i`'s close-date changes are `[closeHistoryStart[i], closeHistoryStart[i + 1])`, oldest first. */
  closeHistoryStart: Uint32Array;
  closeHistoryAt: Float64Array;
  /** NaN: no close date from then on. */
  closeHistoryClose: Float64Array;
}

export const OUTCOME_CODES = { open: 0, won: 1, lost: 2 } as const;

/** Which deals of a definition a pipeline holds: all, one team's, one member's. */
export type PipelineScope =
  { kind: 'complete' } | { kind: 'team'; teamId: string } | { kind: 'member'; memberId: string };

/** A test of "deal `i` of `states` is in the pipeline", with the owner's index looked up once. */
export function inScope(states: DealStates, scope: PipelineScope): (i: number) => boolean {
  switch (scope.kind) {
    case 'complete':
      return () => true;
    case 'team': {
      const team = states.teamIds.indexOf(scope.teamId);
      return (i) => team >= 0 && states.team[i] === team;
    }
    case 'member': {
      const member = states.memberIds.indexOf(scope.memberId);
      return (i) => member >= 0 && states.member[i] === member;
    }
  }
}

/** `keys` and `keyDigits` of a list of ids (see DealStates). */
export function numericKeys(ids: readonly string[]): { keys: Float64Array; keyDigits: number } {
  const digits = ids[0]?.length ?? 0;
  const keys = new Float64Array(ids.length);
  if (digits === 0 || digits > 15) return { keys: new Float64Array(0), keyDigits: 0 };
  for (let i = 0; i < ids.length; i += 1) {
    const id = ids[i];
    if (id.length !== digits || !/^\d+$/.test(id))
      return { keys: new Float64Array(0), keyDigits: 0 };
    keys[i] = Number(id);
  }
  return { keys, keyDigits: digits };
}
