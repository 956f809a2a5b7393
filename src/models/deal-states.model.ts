import { Schema, model } from 'mongoose';

/**
 * One chunk of a snapshot's deal states for one pipeline definition (domain/deal-states.ts):
 * up to DEAL_STATES_CHUNK deals in deal id order, packed as columns (packed-deal-states.ts).
 * `_id` is `<snapshotId>:<definitionId>:<chunk>`; a definition's chunks, read in `chunk` order,
 * hold its deals in id order. Written by the import before the snapshot is committed, immutable
 * afterwards, removed with the snapshot.
 */
export interface DealStatesChunkDoc {
  _id: string;
  snapshotId: string;
  definitionId: string;
  chunk: number;
  count: number;
  /** The chunk's own lists the index columns point into. */
  stageIds: string[];
  memberIds: string[];
  teamIds: string[];
  /** The deal ids concatenated; `idLengths` (uint32) gives each one's length in UTF-16 units. */
  ids: string;
  idLengths: Buffer;
  /** float64 per deal. */
  amount: Buffer;
  /** float64 ms per deal; NaN: none. */
  close: Buffer;
  /** uint16 index into stageIds per deal. */
  stage: Buffer;
  /** uint8 per deal: 0 open, 1 won, 2 lost. */
  outcome: Buffer;
  /** uint32 per deal: 0 none, else index into memberIds + 1. */
  member: Buffer;
  /** uint32 per deal: 0 none, else index into teamIds + 1. */
  team: Buffer;
  /** uint8 per deal: how many stage entries; then uint16 stage index and float64 ms per entry. */
  stageHistoryCount: Buffer;
  stageHistoryStage: Buffer;
  stageHistoryAt: Buffer;
  /** uint8 per deal: how many close-date changes; then float64 ms and float64 close (NaN: none). */
  closeHistoryCount: Buffer;
  closeHistoryAt: Buffer;
  closeHistoryClose: Buffer;
}

const dealStatesSchema = new Schema<DealStatesChunkDoc>(
  {
    _id: { type: String, required: true },
    snapshotId: { type: String, required: true },
    definitionId: { type: String, required: true },
    chunk: { type: Number, required: true },
    count: { type: Number, required: true },
    stageIds: { type: [String], default: [] },
    memberIds: { type: [String], default: [] },
    teamIds: { type: [String], default: [] },
    ids: { type: String, default: '' },
    idLengths: { type: Buffer, required: true },
    amount: { type: Buffer, required: true },
    close: { type: Buffer, required: true },
    stage: { type: Buffer, required: true },
    outcome: { type: Buffer, required: true },
    member: { type: Buffer, required: true },
    team: { type: Buffer, required: true },
    stageHistoryCount: { type: Buffer, required: true },
    stageHistoryStage: { type: Buffer, required: true },
    stageHistoryAt: { type: Buffer, required: true },
    closeHistoryCount: { type: Buffer, required: true },
    closeHistoryAt: { type: Buffer, required: true },
    closeHistoryClose: { type: Buffer, required: true },
  },
  { collection: 'deal_states', versionKey: false },
);

// A definition's chunks in order; re-imports and clean-ups remove a snapshot's at once.
dealStatesSchema.index({ snapshotId: 1, definitionId: 1, chunk: 1 });

export const DealStatesModel = model<DealStatesChunkDoc>('DealStates', dealStatesSchema);
