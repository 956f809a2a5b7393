import { pipelineIdOf, PipelineKind } from '../models/pipeline.model';

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
 * The pipelines of one snapshot as its opportunities pass: per definition the complete pipeline,
 * then one sub-pipeline per team whose members own opportunities in it and one per such member
 * (sorted by id, so the listing is stable). Ids come from `pipelineIdOf` and are the same in every
 * snapshot. Holds the teams and members seen, not the opportunities.
 */
export class PipelineSet {
  private readonly teams = new Map<string, Set<string>>();
  private readonly members = new Map<string, Set<string>>();

  constructor(private readonly definitions: readonly { definitionId: string }[]) {
    for (const d of definitions) {
      this.teams.set(d.definitionId, new Set());
      this.members.set(d.definitionId, new Set());
    }
  }

  add(opp: OwnedOpportunity): void {
    if (opp.teamId !== null) this.teams.get(opp.definitionId)?.add(opp.teamId);
    if (opp.memberId !== null) this.members.get(opp.definitionId)?.add(opp.memberId);
  }

  rows(): PipelineRow[] {
    const rows: PipelineRow[] = [];
    for (const { definitionId } of this.definitions) {
      rows.push({
        pipelineId: pipelineIdOf(definitionId, 'complete'),
        definitionId,
        kind: 'complete',
        teamId: null,
        memberId: null,
        isSubPipeline: false,
      });
      for (const teamId of [...(this.teams.get(definitionId) ?? [])].sort()) {
        rows.push({
          pipelineId: pipelineIdOf(definitionId, 'team', teamId),
          definitionId,
          kind: 'team',
          teamId,
          memberId: null,
          isSubPipeline: true,
        });
      }
      for (const memberId of [...(this.members.get(definitionId) ?? [])].sort()) {
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
}
