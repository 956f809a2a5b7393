import type { PipelineScope } from '../../domain/deal-states';
import type { PipelineView } from '../../domain/snapshot-views';

/** Which deals of its definition a pipeline holds. */
export function inScopeOf(pipeline: PipelineView): PipelineScope {
  switch (pipeline.kind) {
    case 'complete':
      return { kind: 'complete' };
    case 'team':
      return { kind: 'team', teamId: pipeline.teamId ?? '' };
    case 'member':
      return { kind: 'member', memberId: pipeline.memberId ?? '' };
  }
}
