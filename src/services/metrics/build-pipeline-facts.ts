import { DefinitionModel } from '../../models/definition.model';
import { packDayBuckets } from '../../models/packed-day-buckets';
import { packForecastDays } from '../../models/packed-forecast-days';
import { PipelineFactsDoc, PipelineFactsModel } from '../../models/pipeline-facts.model';
import { PipelineModel, pipelineIdOf } from '../../models/pipeline.model';
import { SnapshotModel } from '../../models/snapshot.model';
import type { PipelineRow } from '../../import/build-pipelines';
import type { OpportunityRow } from '../../import/snapshot-writer';
import { PipelineFactsAccumulator } from '../../domain/pipeline-facts';
import { ForecastDaysAccumulator } from '../../domain/forecast-days';

/** How many facts documents go into one insert. */
const INSERT_BATCH = 500;

/** A definition as the facts need it: the probability of each stage. */
export interface FactsDefinition {
  definitionId: string;
  stages: readonly { id: string; probability: number }[];
}

/**
 * The facts of every pipeline of one snapshot, accumulated as its opportunities pass (the import
 * gives them in deal id order, so a snapshot's sums come out the same whichever import made it):
 * per pipeline its open totals, its members and its day buckets, never the opportunities. Memory
 * grows with pipelines × days of activity, not with deals.
 */
export class PipelineFactsBuilder {
  private readonly probability = new Map<string, number>();
  private readonly accumulators = new Map<string, PipelineFactsAccumulator>();
  private readonly forecasts = new Map<string, ForecastDaysAccumulator>();
  readonly year: number;

  constructor(
    definitions: readonly FactsDefinition[],
    readonly snapshotAt: Date,
  ) {
    this.year = snapshotAt.getUTCFullYear();
    for (const definition of definitions) {
      for (const stage of definition.stages)
        this.probability.set(`${definition.definitionId}\u0000${stage.id}`, stage.probability);
    }
  }

  add(opportunity: OpportunityRow): void {
    const p = this.probability.get(`${opportunity.definitionId}\u0000${opportunity.stageId}`) ?? 0;
    this.addTo(pipelineIdOf(opportunity.definitionId, 'complete'), opportunity, p);
    if (opportunity.teamId)
      this.addTo(
        pipelineIdOf(opportunity.definitionId, 'team', opportunity.teamId),
        opportunity,
        p,
      );
    if (opportunity.memberId)
      this.addTo(
        pipelineIdOf(opportunity.definitionId, 'member', opportunity.memberId),
        opportunity,
        p,
      );
  }

  private addTo(pipelineId: string, opportunity: OpportunityRow, probability: number): void {
    let accumulator = this.accumulators.get(pipelineId);
    let forecast = this.forecasts.get(pipelineId);
    if (!accumulator || !forecast) {
      accumulator = new PipelineFactsAccumulator(this.year);
      forecast = new ForecastDaysAccumulator();
      this.accumulators.set(pipelineId, accumulator);
      this.forecasts.set(pipelineId, forecast);
    }
    accumulator.add(opportunity, probability);
    forecast.add(opportunity);
  }

  /**
   * Writes the facts of the snapshot's `pipelines` (a pipeline no opportunity reached has empty
   * facts). Idempotent: a retry replaces earlier facts.
   */
  async write(snapshotId: string, pipelines: readonly PipelineRow[]): Promise<void> {
    const docs: PipelineFactsDoc[] = pipelines.map((pipeline) => {
      const { days, ...result } = (
        this.accumulators.get(pipeline.pipelineId) ?? new PipelineFactsAccumulator(this.year)
      ).result();
      return {
        _id: `${snapshotId}:${pipeline.pipelineId}`,
        snapshotId,
        pipelineId: pipeline.pipelineId,
        definitionId: pipeline.definitionId,
        kind: pipeline.kind,
        teamId: pipeline.teamId ?? null,
        memberId: pipeline.memberId ?? null,
        snapshotAt: this.snapshotAt,
        year: this.year,
        ...result,
        packedDays: packDayBuckets(days),
        packedForecastDays: packForecastDays(
          (this.forecasts.get(pipeline.pipelineId) ?? new ForecastDaysAccumulator()).result(),
        ),
        // A member's own pipeline is always about that member, even before their first deal.
        memberIds:
          pipeline.kind === 'member' && pipeline.memberId ? [pipeline.memberId] : result.memberIds,
      };
    });
    await PipelineFactsModel.deleteMany({ snapshotId });
    for (let i = 0; i < docs.length; i += INSERT_BATCH) {
      await PipelineFactsModel.insertMany(docs.slice(i, i + INSERT_BATCH), { ordered: true });
    }
  }
}

/**
 * Precomputes the facts of every pipeline of a stored snapshot from `opportunities`, rows held in
 * memory (PipelineFactsBuilder over them in deal id order), its definitions and pipelines read
 * back. For writers of small snapshots outside the import (tests, migrations). Throws when the
 * snapshot does not exist.
 */
export async function buildPipelineFacts(
  snapshotId: string,
  opportunities: readonly OpportunityRow[],
): Promise<{ pipelines: number; opportunities: number }> {
  const snapshot = await SnapshotModel.findById(snapshotId, { snapshotAt: 1 }).lean();
  if (!snapshot) throw new Error(`buildPipelineFacts: snapshot ${snapshotId} does not exist`);
  const [definitions, pipelines] = await Promise.all([
    DefinitionModel.find({ snapshotId }, { definitionId: 1, stages: 1 }).lean(),
    PipelineModel.find({ snapshotId }).lean(),
  ]);
  const builder = new PipelineFactsBuilder(definitions, new Date(snapshot.snapshotAt));
  const byDealId = [...opportunities].sort((a, b) =>
    a.dealId < b.dealId ? -1 : a.dealId > b.dealId ? 1 : 0,
  );
  for (const opportunity of byDealId) builder.add(opportunity);
  const rows: PipelineRow[] = pipelines.map((p) => ({
    pipelineId: p.pipelineId,
    definitionId: p.definitionId,
    kind: p.kind,
    teamId: p.teamId ?? null,
    memberId: p.memberId ?? null,
    isSubPipeline: p.isSubPipeline,
  }));
  await builder.write(snapshotId, rows);
  return { pipelines: rows.length, opportunities: opportunities.length };
}
