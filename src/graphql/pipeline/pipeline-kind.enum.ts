import { registerEnumType } from 'type-graphql';
import type { PipelineKind as PipelineKindValue } from '../../models/pipeline.model';

/** The pipeline kinds; values are the stored strings. */
export enum PipelineKind {
  COMPLETE = 'complete',
  TEAM = 'team',
  MEMBER = 'member',
}

registerEnumType(PipelineKind, {
  name: 'PipelineKind',
  description: 'COMPLETE: every opportunity of a definition; TEAM and MEMBER: its sub-pipelines.',
});

export function toPipelineKind(kind: PipelineKindValue): PipelineKind {
  return kind as PipelineKind;
}
