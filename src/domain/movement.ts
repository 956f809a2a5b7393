import { inScope, OUTCOME_CODES, type DealStates, type PipelineScope } from './deal-states';

/** The buckets of a movement, in the order answers list them (docs/analytics.md). */
export const MOVEMENT_KINDS = [
  'won',
  'lost',
  'removed',
  'moved_out',
  'pushed_out',
  'created',
  'moved_in',
  'pulled_in',
  'increased',
  'decreased',
  'unchanged',
] as const;

export type MovementKind = (typeof MOVEMENT_KINDS)[number];

/** −1: takes value out of the pipeline; +1: adds value; 0: `unchanged`, counted only. */
export const MOVEMENT_SIGN: Record<MovementKind, -1 | 0 | 1> = {
  won: -1,
  lost: -1,
  removed: -1,
  moved_out: -1,
  pushed_out: -1,
  created: 1,
  moved_in: 1,
  pulled_in: 1,
  increased: 1,
  decreased: -1,
  unchanged: 0,
};

/** Close dates counted: `[startMs, endMs)`; null: every open deal, whatever its close date. */
export type CloseWindow = { startMs: number; endMs: number } | null;

/** A count and an amount in cents: each deal's amount is taken to the cent, so sums are exact. */
export interface Tally {
  count: number;
  cents: number;
}

export interface Movement {
  opening: Tally;
  closing: Tally;
  buckets: Array<{ kind: MovementKind } & Tally>;
  /**
   * Every deal of either snapshot, in deal id order: its bucket (index into MOVEMENT_KINDS, −1 in
   * none) and its index in each snapshot's states (−1: not there).
   */
  deals: { count: number; kind: Int8Array; from: Int32Array; to: Int32Array };
}

/** A deal's amount in cents, the unit every sum of a movement is made in. */
export function cents(amount: number): number {
  return Math.round(amount * 100);
}

const OPEN = OUTCOME_CODES.open;
const WON = OUTCOME_CODES.won;
const LOST = OUTCOME_CODES.lost;
const K = Object.fromEntries(MOVEMENT_KINDS.map((k, i) => [k, i])) as Record<MovementKind, number>;

/**
 * What moved in one pipeline between the deal states of two snapshots of its definition (`from`
 * before `to`; null: the definition had no deal there): each deal of the opening or the closing
 * pipeline in one bucket, the first rule of the contract's table that applies (docs/analytics.md).
 * A deal leaving counts its opening amount, a deal entering its closing amount, one open at both
 * the change; so opening + Σ(+) − Σ(−) = closing, in cents and in counts.
 */
export function computeMovement(
  from: DealStates | null,
  to: DealStates | null,
  scope: PipelineScope,
  window: CloseWindow,
): Movement {
  const a = from ?? EMPTY;
  const b = to ?? EMPTY;
  const inA = inScope(a, scope);
  const inB = inScope(b, scope);
  const inWindow = (close: number) =>
    window === null || (close >= window.startMs && close < window.endMs);
  const openA = (i: number) => a.outcome[i] === OPEN && inA(i) && inWindow(a.close[i]);
  const openB = (j: number) => b.outcome[j] === OPEN && inB(j) && inWindow(b.close[j]);

  const counts = new Array<number>(MOVEMENT_KINDS.length).fill(0);
  const sums = new Array<number>(MOVEMENT_KINDS.length).fill(0);
  const opening: Tally = { count: 0, cents: 0 };
  const closing: Tally = { count: 0, cents: 0 };
  const capacity = a.count + b.count;
  // Numbers compare faster than strings: the ids' own order when both sides have such keys.
  const numeric = a.keyDigits > 0 && a.keyDigits === b.keyDigits;
  const before = (x: number, y: number) => (numeric ? a.keys[x] < b.keys[y] : a.ids[x] < b.ids[y]);
  const after = (x: number, y: number) => (numeric ? a.keys[x] > b.keys[y] : a.ids[x] > b.ids[y]);
  const kinds = new Int8Array(capacity);
  const fromAt = new Int32Array(capacity);
  const toAt = new Int32Array(capacity);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.count || j < b.count) {
    let ia = -1;
    let jb = -1;
    if (j >= b.count || (i < a.count && before(i, j))) ia = i++;
    else if (i >= a.count || after(i, j)) jb = j++;
    else {
      ia = i++;
      jb = j++;
    }
    const wasOpen = ia >= 0 && openA(ia);
    const isOpen = jb >= 0 && openB(jb);
    let kind = -1;
    let amount = 0;
    if (wasOpen) {
      const before = cents(a.amount[ia]);
      opening.count += 1;
      opening.cents += before;
      if (isOpen) {
        const delta = cents(b.amount[jb]) - before;
        kind = delta > 0 ? K.increased : delta < 0 ? K.decreased : K.unchanged;
        amount = Math.abs(delta);
      } else {
        amount = before;
        if (jb < 0) kind = K.removed;
        else if (b.outcome[jb] === WON) kind = K.won;
        else if (b.outcome[jb] === LOST) kind = K.lost;
        else if (!inB(jb)) kind = K.moved_out;
        else kind = K.pushed_out;
      }
    } else if (isOpen) {
      amount = cents(b.amount[jb]);
      if (ia < 0) kind = K.created;
      else if (!inA(ia)) kind = K.moved_in;
      else kind = K.pulled_in;
    }
    if (isOpen) {
      closing.count += 1;
      closing.cents += cents(b.amount[jb]);
    }
    if (kind >= 0) {
      counts[kind] += 1;
      sums[kind] += amount;
    }
    kinds[n] = kind;
    fromAt[n] = ia;
    toAt[n] = jb;
    n += 1;
  }
  return {
    opening,
    closing,
    buckets: MOVEMENT_KINDS.map((kind, k) => ({
      kind,
      count: counts[k],
      cents: kind === 'unchanged' ? 0 : sums[k],
    })),
    deals: {
      count: n,
      kind: kinds.subarray(0, n),
      from: fromAt.subarray(0, n),
      to: toAt.subarray(0, n),
    },
  };
}

/** The states of a definition without deals. */
export function emptyDealStates(snapshotId: string, definitionId: string): DealStates {
  return {
    snapshotId,
    definitionId,
    count: 0,
    ids: [],
    keys: new Float64Array(0),
    keyDigits: 0,
    amount: new Float64Array(0),
    close: new Float64Array(0),
    stage: new Uint16Array(0),
    outcome: new Uint8Array(0),
    member: new Int32Array(0),
    team: new Int32Array(0),
    stageIds: [],
    memberIds: [],
    teamIds: [],
    stageHistoryStart: new Uint32Array(1),
    stageHistoryStage: new Uint16Array(0),
    stageHistoryAt: new Float64Array(0),
    closeHistoryStart: new Uint32Array(1),
    closeHistoryAt: new Float64Array(0),
    closeHistoryClose: new Float64Array(0),
  };
}

const EMPTY = emptyDealStates('', '');
