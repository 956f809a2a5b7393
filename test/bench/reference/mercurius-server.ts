/**
 * Internal (benchmark): the reference. Fastify + Mercurius with graphql-jit (`jit: 1`: compiled
 * from the first request on) answering the dashboard query from in-memory arrays through a plain
 * SDL schema and resolvers. Children are grouped by parent id once at start, as an in-memory
 * server would index them. No authentication, no database. Run in its own process.
 */
import Fastify from 'fastify';
import mercurius from 'mercurius';
import type { AddressInfo } from 'node:net';
import type { DashboardArrays } from './dashboard-data';
import type { ReferenceMessage, ReferenceReady } from './reference-messages';

const SCHEMA = `
  enum PipelineKind { COMPLETE TEAM MEMBER }
  type MetricDefinition { id: ID! apiCodename: String! }
  type MetricResult { definition: MetricDefinition! value: Float unit: String! }
  type Team { id: ID! name: String! }
  type Member { id: ID! firstname: String! lastname: String! }
  type Pipeline { id: ID! kind: PipelineKind! team: Team member: Member metrics: [MetricResult!]! }
  type Stage { id: ID! label: String! order: Int! isClosed: Boolean! probability: Float! }
  type PipelineDefinition { id: ID! label: String! pipelines: [Pipeline!]! stages: [Stage!]! }
  type PipelineSnapshot { id: ID! createdAt: String! definitions: [PipelineDefinition!]! }
  type Query { snapshot: PipelineSnapshot! }
`;

function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const id = key(item);
    const group = groups.get(id);
    if (group) group.push(item);
    else groups.set(id, [item]);
  }
  return groups;
}

async function serve(data: DashboardArrays): Promise<number> {
  const pipelinesOf = groupBy(data.pipelines, (p) => p.definitionId);
  const stagesOf = groupBy(data.stages, (s) => s.definitionId);
  const metricsOf = groupBy(data.metrics, (m) => m.pipelineId);
  const teams = new Map(data.teams.map((t) => [t.id, t]));
  const members = new Map(data.members.map((m) => [m.id, m]));
  const metricDefinitions = new Map(data.metricDefinitions.map((d) => [d.id, d]));
  type Definition = DashboardArrays['definitions'][number];
  type Pipeline = DashboardArrays['pipelines'][number];
  type Metric = DashboardArrays['metrics'][number];
  const resolvers = {
    Query: { snapshot: () => data.snapshot },
    PipelineSnapshot: { definitions: () => data.definitions },
    PipelineDefinition: {
      pipelines: (d: Definition) => pipelinesOf.get(d.id) ?? [],
      stages: (d: Definition) => stagesOf.get(d.id) ?? [],
    },
    Pipeline: {
      team: (p: Pipeline) => (p.teamId === null ? null : (teams.get(p.teamId) ?? null)),
      member: (p: Pipeline) => (p.memberId === null ? null : (members.get(p.memberId) ?? null)),
      metrics: (p: Pipeline) => metricsOf.get(p.id) ?? [],
    },
    MetricResult: { definition: (m: Metric) => metricDefinitions.get(m.definitionId) },
  };
  const app = Fastify({ logger: false });
  await app.register(mercurius, { schema: SCHEMA, resolvers, jit: 1 });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return (app.server.address() as AddressInfo).port;
}

process.on('message', (message: ReferenceMessage) => {
  if (message.type === 'stop') process.exit(0);
  if (message.type !== 'serve') return;
  serve(message.body as DashboardArrays).then(
    (port) => process.send?.({ type: 'ready', port } satisfies ReferenceReady),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
});
