import { DefinitionModel } from '../../models/definition.model';
import { heldAt, OpportunityModel } from '../../models/opportunity.model';
import { packDayBuckets } from '../../models/packed-day-buckets';
import { PipelineFactsDoc, PipelineFactsModel } from '../../models/pipeline-facts.model';
import { PipelineModel, pipelineIdOf } from '../../models/pipeline.model';
import { SnapshotModel } from '../../models/snapshot.model';
import { PipelineFactsAccumulator } from './facts';

/** How many facts documents go into one insert. */
const INSERT_BATCH = 500;

/**
 * Precomputes the facts of every pipeline of a snapshot. The import calls it after writing the
 * snapshot's definitions, pipelines and opportunities and before marking it committed; it is the
 * only place that scans opportunities for metrics. Idempotent: a retry replaces earlier facts.
 * Throws when the snapshot does not exist.
 */
export async function buildPipelineFacts(snapshotId: string): Promise<{ pipelines: number; opportunities: number }> {
  const snapshot = await SnapshotModel.findById(snapshotId, { snapshotAt: 1, seq: 1 }).lean();
  if (!snapshot) throw new Error(`buildPipelineFacts: snapshot ${snapshotId} does not exist`);
  const snapshotAt = new Date(snapshot.snapshotAt);
  const year = snapshotAt.getUTCFullYear();

  const [definitions, pipelines] = await Promise.all([
    DefinitionModel.find({ snapshotId }, { definitionId: 1, stages: 1 }).lean(),
    PipelineModel.find({ snapshotId }).lean(),
  ]);
  const probability = new Map<string, number>();
  for (const definition of definitions) {
    for (const stage of definition.stages) probability.set(`${definition.definitionId}\u0000${stage.id}`, stage.probability);
  }
  const accumulators = new Map<string, PipelineFactsAccumulator>();
  for (const pipeline of pipelines) accumulators.set(pipeline.pipelineId, new PipelineFactsAccumulator(year));

  let opportunities = 0;
  const cursor = OpportunityModel.find(heldAt(snapshot.seq)).lean().cursor({ batchSize: 1000 });
  for await (const opportunity of cursor) {
    opportunities += 1;
    const p = probability.get(`${opportunity.definitionId}\u0000${opportunity.stageId}`) ?? 0;
    const fields = {
      stageId: opportunity.stageId,
      amount: opportunity.amount,
      memberId: opportunity.memberId ?? null,
      createdAt: opportunity.createdAt ? new Date(opportunity.createdAt) : null,
      closedAt: opportunity.closedAt ? new Date(opportunity.closedAt) : null,
      outcome: opportunity.outcome,
    };
    const targets = [pipelineIdOf(opportunity.definitionId, 'complete')];
    if (opportunity.teamId) targets.push(pipelineIdOf(opportunity.definitionId, 'team', opportunity.teamId));
    if (opportunity.memberId) targets.push(pipelineIdOf(opportunity.definitionId, 'member', opportunity.memberId));
    for (const pipelineId of targets) accumulators.get(pipelineId)?.add(fields, p);
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
      // A member's own pipeline is always about that member, even before their first deal.
      memberIds: pipeline.kind === 'member' && pipeline.memberId ? [pipeline.memberId] : result.memberIds,
    };
  });
  await PipelineFactsModel.deleteMany({ snapshotId });
  for (let i = 0; i < docs.length; i += INSERT_BATCH) {
    await PipelineFactsModel.insertMany(docs.slice(i, i + INSERT_BATCH), { ordered: true });
  }
  return { pipelines: docs.length, opportunities };
}
