import type { AuthenticatedContext } from '../../context/request-context';
import { BadUserInputError } from '../../errors';
import { computeStageAnalytics, type StageFigures } from '../../domain/stage-analytics';
import type { SnapshotView } from '../../domain/snapshot-views';
import { getDefinition } from '../pipeline.service';
import { analysedPipeline, requireDay, snapshotAt } from './analysis-span';
import { dealStatesOf } from './movement.service';

const DAY_MS = 86_400_000;

export interface StageAnalyticsRequest {
  pipelineId: string;
  /** Dates `YYYY-MM-DD`, both included. */
  from: string;
  to: string;
}

export interface PipelineStageAnalytics {
  pipelineId: string;
  from: string;
  to: string;
  /** The snapshot whose stage histories are read: the latest at or before the end of `to`. */
  snapshot: SnapshotView;
  stages: StageFigures[];
}

/**
 * Per stage of the pipeline's definition, in order, the deals of the pipeline that entered it from
 * `from` to `to` (docs/analytics.md, "Stage analytics"), read from their stage histories in the
 * latest snapshot at or before the end of `to`. Every role may read it. Not a date, or `from` after
 * `to`: 400; no snapshot by `to`: 404 naming the earliest; the pipeline not in it: 404.
 */
export async function getStageAnalytics(
  ctx: AuthenticatedContext,
  request: StageAnalyticsRequest,
): Promise<PipelineStageAnalytics> {
  const startMs = requireDay(request.from, 'from');
  const endMs = requireDay(request.to, 'to') + DAY_MS;
  if (startMs >= endMs) {
    const message = `must not be after to (${request.to})`;
    throw new BadUserInputError(`Invalid from: ${message}, got "${request.from}"`, [
      { field: 'from', message },
    ]);
  }
  const snapshot = await snapshotAt(ctx, request.to, 'to');
  const { pipeline, scope } = await analysedPipeline(ctx, request.pipelineId, [snapshot]);
  const [definition, states] = await Promise.all([
    getDefinition(ctx, pipeline.definitionId, snapshot.id),
    dealStatesOf(ctx, snapshot.id, pipeline.definitionId),
  ]);
  return {
    pipelineId: pipeline.id,
    from: request.from,
    to: request.to,
    snapshot,
    stages: computeStageAnalytics(states, scope, definition.stages, { startMs, endMs }),
  };
}
