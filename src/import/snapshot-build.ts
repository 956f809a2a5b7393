import { PipelineFactsBuilder } from '../services/metrics/build-pipeline-facts';
import { DealStatesWriter } from './build-deal-states';
import { PipelineSet, type PipelineRow } from './build-pipelines';
import type { NormalisedDeal, NormalisedDefinition } from './normalised.types';
import { type OpportunityRow, writePipelines } from './snapshot-writer';

/** A snapshot an import writes: the current one, or one backfilled at a past period end. */
export interface PlannedSnapshot {
  id: string;
  seq: number;
  at: Date;
  /** The import's own snapshot (deals as they are now), not a backfilled one. */
  current: boolean;
}

/**
 * Something precomputed of a snapshot while the import passes its opportunities, in deal id order:
 * `add` for each opportunity the snapshot holds (with the deal it came from, null for a deal an
 * incremental import kept from the latest snapshot), then `write` once, before the commit. What it
 * holds must not grow with deals.
 */
export interface SnapshotAccumulator {
  add(row: OpportunityRow, deal: NormalisedDeal | null): void | Promise<void>;
  write(snapshot: PlannedSnapshot, pipelines: readonly PipelineRow[]): Promise<void>;
}

/**
 * What an import builds of one snapshot beside its opportunity versions: its pipelines (complete
 * and sub-pipelines, from the owners seen) and every accumulator's precomputation, the pipeline
 * facts first, then the deal states (written a chunk at a time as the deals pass).
 */
export class SnapshotBuild {
  private readonly pipelines: PipelineSet;
  private readonly accumulators: SnapshotAccumulator[];

  constructor(
    readonly snapshot: PlannedSnapshot,
    definitions: readonly NormalisedDefinition[],
  ) {
    this.pipelines = new PipelineSet(definitions);
    const facts = new PipelineFactsBuilder(definitions, snapshot.at);
    const states = new DealStatesWriter(snapshot.id);
    this.accumulators = [
      { add: (row) => facts.add(row), write: (s, pipelines) => facts.write(s.id, pipelines) },
      { add: (row) => states.add(row), write: () => states.finish() },
    ];
  }

  /** Takes the snapshot's next opportunity, its histories set. */
  async add(row: OpportunityRow, deal: NormalisedDeal | null): Promise<void> {
    this.pipelines.add(row);
    for (const accumulator of this.accumulators) await accumulator.add(row, deal);
  }

  /** Writes the snapshot's pipelines, then what each accumulator precomputed. */
  async write(): Promise<void> {
    const rows = this.pipelines.rows();
    await writePipelines(this.snapshot.id, rows);
    for (const accumulator of this.accumulators) await accumulator.write(this.snapshot, rows);
  }
}
