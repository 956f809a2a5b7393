import { pipelineIdOf, PipelineKind } from '../models/pipeline.model';
import type { NormalisedDefinition } from './normalised.types';

export interface PipelineRow {
  pipelineId: string;
  definitionId: string;
  kind: PipelineKind;
  teamId: string | null;
  memberId: string | null;
  isSubPipeline: boolean;
}

/** Who owns an opportunity in a snapshot: what sub-pipelines are made from. */
export interface OwnedOpportunity {
  definitionId: string;
  memberId: string | null;
  teamId: string | null;
}

/**
 * The pipelines of one snapshot: per definition the complete pipeline, then one sub-pipeline per
 * team whose members own opportunities in it and one per such member (sorted by id, so the
 * listing is stable). Ids come from `pipelineIdOf` and are the same in every snapshot.
 */
export function buildPipelines(
  definitions: NormalisedDefinition[],
  opportunities: Iterable<OwnedOpportunity>,
): PipelineRow[] {
  const teams = new Map<string, Set<string>>();
  const members = new Map<string, Set<string>>();
  for (const d of definitions) {
    teams.set(d.definitionId, new Set());
    members.set(d.definitionId, new Set());
  }
  for (const opp of opportunities) {
    if (opp.teamId !== null) teams.get(opp.definitionId)?.add(opp.teamId);
    if (opp.memberId !== null) members.get(opp.definitionId)?.add(opp.memberId);
  }
  const rows: PipelineRow[] = [];
  for (const { definitionId } of definitions) {
    rows.push({
      pipelineId: pipelineIdOf(definitionId, 'complete'),
      definitionId,
      kind: 'complete',
      teamId: null,
      memberId: null,
      isSubPipeline: false,
    });
    for (const teamId of [...(teams.get(definitionId) ?? [])].sort()) {
      rows.push({
        pipelineId: pipelineIdOf(definitionId, 'team', teamId),
        definitionId,
        kind: 'team',
        teamId,
        memberId: null,
        isSubPipeline: true,
      });
    }
    for (const memberId of [...(members.get(definitionId) ?? [])].sort()) {
      rows.push({
        pipelineId: pipelineIdOf(definitionId, 'member', memberId),
        definitionId,
        kind: 'member',
        teamId: null,
        memberId,
        isSubPipeline: true,
      });
    }
  }
  return rows;
}
