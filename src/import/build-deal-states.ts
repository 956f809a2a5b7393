import { DealStatesModel } from '../models/deal-states.model';
import { packDealStates, type DealStateRow } from '../models/packed-deal-states';

/** Deals per deal-states document: about 300 KB of columns, far below one BSON document's limit. */
export const DEAL_STATES_CHUNK = 8192;

/**
 * Writes a snapshot's deal states (domain/deal-states.ts) as its deals come, in deal id order: per
 * definition, a chunk document each DEAL_STATES_CHUNK deals, so what it holds is at most one chunk
 * per definition whatever the number of deals.
 */
export class DealStatesWriter {
  private readonly pending = new Map<string, DealStateRow[]>();
  private readonly written = new Map<string, number>();
  private last: string | null = null;

  constructor(private readonly snapshotId: string) {}

  async add(row: DealStateRow & { definitionId: string }): Promise<void> {
    if (this.last !== null && !(this.last < row.dealId))
      throw new Error(
        `deal states must come in deal id order: "${row.dealId}" after "${this.last}"`,
      );
    this.last = row.dealId;
    let rows = this.pending.get(row.definitionId);
    if (!rows) this.pending.set(row.definitionId, (rows = []));
    rows.push(row);
    if (rows.length >= DEAL_STATES_CHUNK) await this.flush(row.definitionId);
  }

  /** Writes what is left; a definition without deals has no document (it reads as none). */
  async finish(): Promise<void> {
    for (const definitionId of [...this.pending.keys()]) await this.flush(definitionId);
  }

  private async flush(definitionId: string): Promise<void> {
    const rows = this.pending.get(definitionId) ?? [];
    this.pending.delete(definitionId);
    if (rows.length === 0) return;
    const chunk = this.written.get(definitionId) ?? 0;
    this.written.set(definitionId, chunk + 1);
    await DealStatesModel.insertMany(
      [packDealStates({ snapshotId: this.snapshotId, definitionId, chunk }, rows)],
      { lean: true },
    );
  }
}

/**
 * Precomputes the deal states of a snapshot from `rows`, its opportunities as the import has just
 * stored them (with their histories), in deal id order: called beside buildPipelineFacts, before
 * the snapshot is committed. Idempotent: a retry replaces earlier states.
 */
export async function buildDealStates(
  snapshotId: string,
  rows: Iterable<DealStateRow & { definitionId: string }>,
): Promise<void> {
  await DealStatesModel.deleteMany({ snapshotId });
  const writer = new DealStatesWriter(snapshotId);
  for (const row of rows) await writer.add(row);
  await writer.finish();
}
