/**
 * Internal (benchmark): the dashboard's data as plain arrays, the way an in-memory server keeps
 * it, taken once from the gateway's own answer to DASHBOARD_SOURCE_QUERY.
 */

export interface DashboardArrays {
  snapshot: { id: string; createdAt: string };
  definitions: Array<{ id: string; label: string }>;
  stages: Array<{
    definitionId: string;
    id: string;
    label: string;
    order: number;
    isClosed: boolean;
    probability: number;
  }>;
  pipelines: Array<{
    definitionId: string;
    id: string;
    kind: string;
    teamId: string | null;
    memberId: string | null;
  }>;
  teams: Array<{ id: string; name: string }>;
  members: Array<{ id: string; firstname: string; lastname: string }>;
  metricDefinitions: Array<{ id: string; apiCodename: string }>;
  metrics: Array<{ pipelineId: string; definitionId: string; value: number | null; unit: string }>;
}

/** Everything the dashboard query shows, with the ids needed to join it. */
export const DASHBOARD_SOURCE_QUERY = `{
  snapshot {
    id createdAt
    definitions {
      id label
      stages { id label order isClosed probability }
      pipelines {
        id kind
        team { id name }
        member { id firstname lastname }
        metrics { definition { id apiCodename } value unit }
      }
    }
  }
}`;

interface SourceAnswer {
  snapshot: {
    id: string;
    createdAt: string;
    definitions: Array<{
      id: string;
      label: string;
      stages: Array<{
        id: string;
        label: string;
        order: number;
        isClosed: boolean;
        probability: number;
      }>;
      pipelines: Array<{
        id: string;
        kind: string;
        team: { id: string; name: string } | null;
        member: { id: string; firstname: string; lastname: string } | null;
        metrics: Array<{
          definition: { id: string; apiCodename: string };
          value: number | null;
          unit: string;
        }>;
      }>;
    }>;
  };
}

/** Flattens the gateway's answer into arrays (teams, members, metric definitions deduplicated). */
export function toDashboardArrays(data: SourceAnswer): DashboardArrays {
  const teams = new Map<string, { id: string; name: string }>();
  const members = new Map<string, { id: string; firstname: string; lastname: string }>();
  const metricDefinitions = new Map<string, { id: string; apiCodename: string }>();
  const arrays: DashboardArrays = {
    snapshot: { id: data.snapshot.id, createdAt: data.snapshot.createdAt },
    definitions: [],
    stages: [],
    pipelines: [],
    teams: [],
    members: [],
    metricDefinitions: [],
    metrics: [],
  };
  for (const definition of data.snapshot.definitions) {
    arrays.definitions.push({ id: definition.id, label: definition.label });
    for (const stage of definition.stages)
      arrays.stages.push({ definitionId: definition.id, ...stage });
    for (const pipeline of definition.pipelines) {
      if (pipeline.team) teams.set(pipeline.team.id, pipeline.team);
      if (pipeline.member) members.set(pipeline.member.id, pipeline.member);
      arrays.pipelines.push({
        definitionId: definition.id,
        id: pipeline.id,
        kind: pipeline.kind,
        teamId: pipeline.team?.id ?? null,
        memberId: pipeline.member?.id ?? null,
      });
      for (const metric of pipeline.metrics) {
        metricDefinitions.set(metric.definition.id, metric.definition);
        arrays.metrics.push({
          pipelineId: pipeline.id,
          definitionId: metric.definition.id,
          value: metric.value,
          unit: metric.unit,
        });
      }
    }
  }
  arrays.teams = [...teams.values()];
  arrays.members = [...members.values()];
  arrays.metricDefinitions = [...metricDefinitions.values()];
  return arrays;
}
