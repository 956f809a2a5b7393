import { DefinitionModel } from '../../models/definition.model';
import { packDayBuckets } from '../../models/packed-day-buckets';
import { packForecastDays } from '../../models/packed-forecast-days';
import { PipelineFactsDoc, PipelineFactsModel } from '../../models/pipeline-facts.model';
import { PipelineModel, pipelineIdOf } from '../../models/pipeline.model';
import { SnapshotModel } from '../../models/snapshot.model';
import type { OpportunityRow } from '../../import/snapshot-writer';
import { PipelineFactsAccumulator } from '../../domain/pipeline-facts';
import { ForecastDaysAccumulator } from '../../domain/forecast-days';

/** How many facts documents go into one insert. */
const INSERT_BATCH = 500;

/**
 * Precomputes the facts of every pipeline of a snapshot from `opportunities`, the rows the import
 * has just stored as the snapshot's opportunities (writeOpportunityVersions): the import holds
 * them in memory, so the facts need no second read of every deal the snapshot holds. They are
 * accumulated in deal id order, so a snapshot's sums come out the same whichever import made it.
 * The import calls it after writing the snapshot's definitions, pipelines and opportunities and
 * before marking it committed. Idempotent: a retry replaces earlier facts. Throws when the
 * snapshot does not exist.
 */
export async function buildPipelineFacts(
  snapshotId: string,
  opportunities: readonly OpportunityRow[],
): Promise<{ pipelines: number; opportunities: number }> {
  const snapshot = await SnapshotModel.findById(snapshotId, { snapshotAt: 1 }).lean();
  if (!snapshot) throw new Error(`buildPipelineFacts: snapshot ${snapshotId} does not exist`);
  const snapshotAt = new Date(snapshot.snapshotAt);
  const year = snapshotAt.getUTCFullYear();

  const [definitions, pipelines] = await Promise.all([
    DefinitionModel.find({ snapshotId }, { definitionId: 1, stages: 1 }).lean(),
    PipelineModel.find({ snapshotId }).lean(),
  ]);
  const probability = new Map<string, number>();
  for (const definition of definitions) {
    for (const stage of definition.stages)
      probability.set(`${definition.definitionId}\u0000${stage.id}`, stage.probability);
  }
  const accumulators = new Map<string, PipelineFactsAccumulator>();
  const forecasts = new Map<string, ForecastDaysAccumulator>();
  for (const pipeline of pipelines) {
    accumulators.set(pipeline.pipelineId, new PipelineFactsAccumulator(year));
    forecasts.set(pipeline.pipelineId, new ForecastDaysAccumulator());
  }

  const byDealId = [...opportunities].sort((a, b) =>
    a.dealId < b.dealId ? -1 : a.dealId > b.dealId ? 1 : 0,
  );
  for (const opportunity of byDealId) {
    const p = probability.get(`${opportunity.definitionId}\u0000${opportunity.stageId}`) ?? 0;
    const targets = [pipelineIdOf(opportunity.definitionId, 'complete')];
    if (opportunity.teamId)
      targets.push(pipelineIdOf(opportunity.definitionId, 'team', opportunity.teamId));
    if (opportunity.memberId)
      targets.push(pipelineIdOf(opportunity.definitionId, 'member', opportunity.memberId));
    for (const pipelineId of targets) {
      accumulators.get(pipelineId)?.add(opportunity, p);
      forecasts.get(pipelineId)?.add(opportunity);
    }
  }

  const docs: PipelineFactsDoc[] = pipelines.map((pipeline) => {
    const { days, ...result } = accumulators.get(pipeline.pipelineId)!.result();
    return {
      _id: `${snapshotId}:${pipeline.pipelineId}`,
      snapshotId,
      pipelineId: pipeline.pipelineId,
      definitionId: pipeline.definitionId,
      kind: pipeline.kind,
      teamId: pipeline.teamId ?? null,
      memberId: pipeline.memberId ?? null,
      snapshotAt,
      year,
      ...result,
      packedDays: packDayBuckets(days),
      packedForecastDays: packForecastDays(forecasts.get(pipeline.pipelineId)!.result()),
      // A member's own pipeline is always about that member, even before their first deal.
      memberIds:
        pipeline.kind === 'member' && pipeline.memberId ? [pipeline.memberId] : result.memberIds,
    };
  });
  await PipelineFactsModel.deleteMany({ snapshotId });
  for (let i = 0; i < docs.length; i += INSERT_BATCH) {
    await PipelineFactsModel.insertMany(docs.slice(i, i + INSERT_BATCH), { ordered: true });
  }
  return { pipelines: docs.length, opportunities: opportunities.length };
}
