/**
 * Internal to the metrics tests and benchmark: writes a committed snapshot with `count`
 * opportunities straight through the models (no HubSpot parsing), spread over `members` owners
 * and every day of 2026, then precomputes its facts as the import does.
 */
import { randomUUID } from 'node:crypto';
import { DefinitionModel } from '../../../src/models/definition.model';
import type { Outcome } from '../../../src/models/opportunity.model';
import { nextSeq } from '../../../src/import/import-base';
import { type OpportunityRow, writeOpportunityVersions } from '../../../src/import/snapshot-writer';
import { PipelineModel, pipelineIdOf } from '../../../src/models/pipeline.model';
import { SnapshotModel } from '../../../src/models/snapshot.model';
import { buildPipelineFacts } from '../../../src/services/metrics/build-pipeline-facts';

const STAGES = [
  { id: 'open-a', label: 'A', order: 0, isClosed: false, probability: 0.2 },
  { id: 'open-b', label: 'B', order: 1, isClosed: false, probability: 0.7 },
  { id: 'won', label: 'Won', order: 2, isClosed: true, probability: 1 },
  { id: 'lost', label: 'Lost', order: 3, isClosed: true, probability: 0 },
];
const OUTCOME: Record<string, Outcome> = {
  'open-a': 'open',
  'open-b': 'open',
  won: 'won',
  lost: 'lost',
};

export async function seedSnapshot(options: {
  count: number;
  members: number;
  snapshotAt: Date;
}): Promise<{ snapshotId: string; buildMs: number }> {
  const snapshotId = randomUUID();
  const seq = await nextSeq();
  await SnapshotModel.create({
    _id: snapshotId,
    seq,
    snapshotAt: options.snapshotAt,
    importedAt: options.snapshotAt,
    status: 'pending',
    importId: randomUUID(),
    sourceHash: randomUUID(),
    counts: {
      pipelines: 1,
      stages: STAGES.length,
      deals: options.count,
      owners: options.members,
      teams: 1,
      membersCreated: 0,
    },
  });
  await DefinitionModel.create({
    _id: `${snapshotId}:sales`,
    snapshotId,
    definitionId: 'sales',
    label: 'Sales',
    displayOrder: 0,
    stages: STAGES,
  });
  const members = Array.from({ length: options.members }, (_, i) => `member-${i + 1}`);
  await PipelineModel.insertMany([
    {
      _id: `${snapshotId}:sales`,
      snapshotId,
      pipelineId: 'sales',
      definitionId: 'sales',
      kind: 'complete',
      teamId: null,
      memberId: null,
      isSubPipeline: false,
    },
    ...members.map((m) => {
      const pipelineId = pipelineIdOf('sales', 'member', m);
      return {
        _id: `${snapshotId}:${pipelineId}`,
        snapshotId,
        pipelineId,
        definitionId: 'sales',
        kind: 'member',
        teamId: null,
        memberId: m,
        isSubPipeline: true,
      };
    }),
  ]);
  const rows: OpportunityRow[] = [];
  for (let i = 0; i < options.count; i += 1) {
    const stage = STAGES[i % STAGES.length];
    const closedAt = new Date(Date.UTC(2026, 0, 1 + (i % 365)));
    rows.push({
      dealId: String(i),
      name: `Deal ${i}`,
      definitionId: 'sales',
      stageId: stage.id,
      amount: 100 + (i % 1000),
      memberId: members[i % members.length],
      teamId: null,
      createdAt: new Date(closedAt.getTime() - (10 + (i % 50)) * 86_400_000),
      closedAt,
      outcome: OUTCOME[stage.id],
      crmForecastCategory: null,
      forecastCategory: null,
      forecastCategorySource: null,
      stageHistory: [],
      closeHistory: [],
      stageEntries: [],
    });
  }
  // Each seeded snapshot is a whole picture of its own, written as the import writes one.
  await writeOpportunityVersions(seq, options.snapshotAt, rows, () => undefined);
  const started = performance.now();
  await buildPipelineFacts(snapshotId, rows);
  const buildMs = performance.now() - started;
  await SnapshotModel.updateOne({ _id: snapshotId }, { $set: { status: 'committed' } });
  return { snapshotId, buildMs };
}
