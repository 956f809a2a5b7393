import type { CloseChange, StageEntry } from '../domain/deal-history';
import { numericKeys, OUTCOME_CODES, type DealStates } from '../domain/deal-states';
import type { Outcome } from './opportunity.model';
import type { DealStatesChunkDoc } from './deal-states.model';

/** What a deal state is packed from: an opportunity row of the import. */
export interface DealStateRow {
  dealId: string;
  stageId: string;
  amount: number;
  memberId: string | null;
  teamId: string | null;
  closedAt: Date | null;
  outcome: Outcome;
  stageHistory: readonly StageEntry[];
  closeHistory: readonly CloseChange[];
}

/** Indexes of the values of one list, in first-seen order. */
class Dictionary {
  readonly values: string[] = [];
  private readonly index = new Map<string, number>();

  of(value: string): number {
    let i = this.index.get(value);
    if (i === undefined) {
      i = this.values.length;
      this.values.push(value);
      this.index.set(value, i);
    }
    return i;
  }
}

const bytesOf = (array: ArrayBufferView) =>
  Buffer.from(array.buffer, array.byteOffset, array.byteLength);

/**
 * Packs deals (in deal id order) as one chunk document: a column per field, typed arrays as
 * bytes, stages, members and teams as indexes into the chunk's own lists. A deal keeps at most
 * 255 stage entries and close changes here (the histories keep at most 100).
 */
export function packDealStates(
  key: { snapshotId: string; definitionId: string; chunk: number },
  rows: readonly DealStateRow[],
): DealStatesChunkDoc {
  const n = rows.length;
  const stages = new Dictionary();
  const members = new Dictionary();
  const teams = new Dictionary();
  const idLengths = new Uint32Array(n);
  const amount = new Float64Array(n);
  const close = new Float64Array(n);
  const stage = new Uint16Array(n);
  const outcome = new Uint8Array(n);
  const member = new Uint32Array(n);
  const team = new Uint32Array(n);
  const stageCount = new Uint8Array(n);
  const closeCount = new Uint8Array(n);
  let entries = 0;
  let changes = 0;
  rows.forEach((row, i) => {
    stageCount[i] = Math.min(255, row.stageHistory.length);
    closeCount[i] = Math.min(255, row.closeHistory.length);
    entries += stageCount[i];
    changes += closeCount[i];
  });
  const historyStage = new Uint16Array(entries);
  const historyAt = new Float64Array(entries);
  const changeAt = new Float64Array(changes);
  const changeClose = new Float64Array(changes);
  let e = 0;
  let c = 0;
  const ids: string[] = [];
  rows.forEach((row, i) => {
    ids.push(row.dealId);
    idLengths[i] = row.dealId.length;
    amount[i] = Number.isFinite(row.amount) ? row.amount : 0;
    close[i] = row.closedAt ? row.closedAt.getTime() : NaN;
    stage[i] = stages.of(row.stageId);
    outcome[i] = OUTCOME_CODES[row.outcome];
    member[i] = row.memberId === null ? 0 : members.of(row.memberId) + 1;
    team[i] = row.teamId === null ? 0 : teams.of(row.teamId) + 1;
    for (const entry of row.stageHistory.slice(-stageCount[i])) {
      historyStage[e] = stages.of(entry.stageId);
      historyAt[e++] = entry.at.getTime();
    }
    for (const change of row.closeHistory.slice(-closeCount[i])) {
      changeAt[c] = change.at.getTime();
      changeClose[c++] = change.closedAt ? change.closedAt.getTime() : NaN;
    }
  });
  return {
    _id: `${key.snapshotId}:${key.definitionId}:${key.chunk}`,
    snapshotId: key.snapshotId,
    definitionId: key.definitionId,
    chunk: key.chunk,
    count: n,
    stageIds: stages.values,
    memberIds: members.values,
    teamIds: teams.values,
    ids: ids.join(''),
    idLengths: bytesOf(idLengths),
    amount: bytesOf(amount),
    close: bytesOf(close),
    stage: bytesOf(stage),
    outcome: bytesOf(outcome),
    member: bytesOf(member),
    team: bytesOf(team),
    stageHistoryCount: bytesOf(stageCount),
    stageHistoryStage: bytesOf(historyStage),
    stageHistoryAt: bytesOf(historyAt),
    closeHistoryCount: bytesOf(closeCount),
    closeHistoryAt: bytesOf(changeAt),
    closeHistoryClose: bytesOf(changeClose),
  };
}

/** The bytes of a binary field as a lean read answers it: a Buffer, or the driver's Binary. */
type Bytes = Uint8Array | { buffer: Uint8Array };

function raw(value: Bytes): Uint8Array {
  return value instanceof Uint8Array ? value : value.buffer;
}

/** A column's values, copied out of the document's bytes (which need not be aligned). */
function column<T>(
  value: Bytes,
  Kind: { new (buffer: ArrayBuffer): T; BYTES_PER_ELEMENT: number },
  count: number,
  what: string,
): T {
  const bytes = raw(value);
  if (bytes.byteLength !== count * Kind.BYTES_PER_ELEMENT)
    throw new RangeError(
      `deal states column ${what} has ${bytes.byteLength} bytes, expected ${count * Kind.BYTES_PER_ELEMENT}`,
    );
  const copy = new ArrayBuffer(bytes.byteLength);
  new Uint8Array(copy).set(bytes);
  return new Kind(copy);
}

/** A definition's chunks (in chunk order) as one set of columns, the lists merged. */
export function unpackDealStates(
  key: { snapshotId: string; definitionId: string },
  chunks: readonly DealStatesChunkDoc[],
): DealStates {
  const count = chunks.reduce((n, chunk) => n + chunk.count, 0);
  const states: DealStates = {
    ...key,
    count,
    ids: new Array<string>(count),
    keys: new Float64Array(0),
    keyDigits: 0,
    amount: new Float64Array(count),
    close: new Float64Array(count),
    stage: new Uint16Array(count),
    outcome: new Uint8Array(count),
    member: new Int32Array(count),
    team: new Int32Array(count),
    stageIds: [],
    memberIds: [],
    teamIds: [],
    stageHistoryStart: new Uint32Array(count + 1),
    stageHistoryStage: new Uint16Array(0),
    stageHistoryAt: new Float64Array(0),
    closeHistoryStart: new Uint32Array(count + 1),
    closeHistoryAt: new Float64Array(0),
    closeHistoryClose: new Float64Array(0),
  };
  const stages = new Dictionary();
  const members = new Dictionary();
  const teams = new Dictionary();
  const historyStages: Uint16Array[] = [];
  const historyAts: Float64Array[] = [];
  const changeAts: Float64Array[] = [];
  const changeCloses: Float64Array[] = [];
  let at = 0;
  let entries = 0;
  let changes = 0;
  for (const chunk of chunks) {
    const n = chunk.count;
    const what = (name: string) => `${name} of ${chunk._id}`;
    const lengths = column(chunk.idLengths, Uint32Array, n, what('idLengths'));
    const stageMap = chunk.stageIds.map((id) => stages.of(id));
    const memberMap = chunk.memberIds.map((id) => members.of(id));
    const teamMap = chunk.teamIds.map((id) => teams.of(id));
    const amount = column(chunk.amount, Float64Array, n, what('amount'));
    const close = column(chunk.close, Float64Array, n, what('close'));
    const stage = column(chunk.stage, Uint16Array, n, what('stage'));
    const outcome = column(chunk.outcome, Uint8Array, n, what('outcome'));
    const member = column(chunk.member, Uint32Array, n, what('member'));
    const team = column(chunk.team, Uint32Array, n, what('team'));
    const stageCount = column(chunk.stageHistoryCount, Uint8Array, n, what('stageHistoryCount'));
    const closeCount = column(chunk.closeHistoryCount, Uint8Array, n, what('closeHistoryCount'));
    const chunkEntries = stageCount.reduce((s, v) => s + v, 0);
    const chunkChanges = closeCount.reduce((s, v) => s + v, 0);
    const hStage = column(
      chunk.stageHistoryStage,
      Uint16Array,
      chunkEntries,
      what('stageHistoryStage'),
    );
    historyStages.push(hStage.map((s) => stageMap[s]));
    historyAts.push(
      column(chunk.stageHistoryAt, Float64Array, chunkEntries, what('stageHistoryAt')),
    );
    changeAts.push(
      column(chunk.closeHistoryAt, Float64Array, chunkChanges, what('closeHistoryAt')),
    );
    changeCloses.push(
      column(chunk.closeHistoryClose, Float64Array, chunkChanges, what('closeHistoryClose')),
    );
    let offset = 0;
    for (let i = 0; i < n; i += 1, at += 1) {
      states.ids[at] = chunk.ids.slice(offset, (offset += lengths[i]));
      states.amount[at] = amount[i];
      states.close[at] = close[i];
      states.stage[at] = stageMap[stage[i]];
      states.outcome[at] = outcome[i];
      states.member[at] = member[i] === 0 ? -1 : memberMap[member[i] - 1];
      states.team[at] = team[i] === 0 ? -1 : teamMap[team[i] - 1];
      entries += stageCount[i];
      changes += closeCount[i];
      states.stageHistoryStart[at + 1] = entries;
      states.closeHistoryStart[at + 1] = changes;
    }
  }
  Object.assign(states, numericKeys(states.ids));
  states.stageIds = stages.values;
  states.memberIds = members.values;
  states.teamIds = teams.values;
  states.stageHistoryStage = concat(Uint16Array, historyStages, entries);
  states.stageHistoryAt = concat(Float64Array, historyAts, entries);
  states.closeHistoryAt = concat(Float64Array, changeAts, changes);
  states.closeHistoryClose = concat(Float64Array, changeCloses, changes);
  return states;
}

function concat<T extends Uint16Array | Float64Array>(
  Kind: { new (length: number): T },
  parts: readonly T[],
  length: number,
): T {
  const out = new Kind(length);
  let at = 0;
  for (const part of parts) {
    out.set(part as never, at);
    at += part.length;
  }
  return out;
}
