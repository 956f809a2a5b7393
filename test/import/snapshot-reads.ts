import type { TestGateway } from '../helpers/gateway';

/** Internal to the import tests: every read of one snapshot, over HTTP (REST and GraphQL). */

const SNAPSHOT_READ = `query Snapshot($id: ID) {
  snapshot(id: $id) {
    createdAt
    definitions {
      id label
      stages { id label order probability isClosed }
      pipelines { id kind isSubPipeline member { id } team { id } metrics { definition { apiCodename } value unit } }
    }
  }
}`;

const OPPORTUNITIES_READ = `query Opportunities($id: ID!, $snapshotId: ID, $after: String, $stageId: ID, $open: Boolean) {
  pipeline(id: $id, snapshotId: $snapshotId) {
    opportunities(first: 3, after: $after, stageId: $stageId, open: $open) {
      edges { cursor node { id name amount outcome closedAt createdAt stage { id } member { id } team { id } } }
      pageInfo { hasNextPage endCursor }
    }
  }
}`;

/** Every page of a pipeline's opportunities (pages of 3, so paging is exercised too). */
async function allOpportunities(
  gateway: TestGateway,
  variables: Record<string, unknown>,
): Promise<unknown[]> {
  const pages: unknown[] = [];
  let after: string | null = null;
  for (;;) {
    const read: { body: any } = await gateway.graphql(OPPORTUNITIES_READ, { ...variables, after });
    expect(read.body.errors).toBeUndefined();
    const page: { pageInfo: { hasNextPage: boolean; endCursor: string } } =
      read.body.data.pipeline.opportunities;
    pages.push(page);
    if (!page.pageInfo.hasNextPage) return pages;
    after = page.pageInfo.endCursor;
  }
}

/** Every read of one snapshot, its id left out of the answers. */
export async function readsOf(gateway: TestGateway, snapshotId: string): Promise<unknown> {
  const snapshot = await gateway.graphql(SNAPSHOT_READ, { id: snapshotId });
  expect(snapshot.body.errors).toBeUndefined();
  const reads: Record<string, unknown> = { snapshot: snapshot.body.data };
  for (const definition of snapshot.body.data.snapshot.definitions) {
    for (const pipeline of definition.pipelines) {
      const key = `pipeline ${pipeline.id}`;
      reads[`${key} opportunities`] = await allOpportunities(gateway, {
        id: pipeline.id,
        snapshotId,
      });
      reads[`${key} open`] = await allOpportunities(gateway, {
        id: pipeline.id,
        snapshotId,
        open: true,
      });
      reads[`${key} closed`] = await allOpportunities(gateway, {
        id: pipeline.id,
        snapshotId,
        open: false,
      });
      for (const stage of definition.stages) {
        reads[`${key} stage ${stage.id}`] = await allOpportunities(gateway, {
          id: pipeline.id,
          snapshotId,
          stageId: stage.id,
        });
      }
      const metrics = await gateway.request('GET', '/pipelines/metrics', {
        query: { pipeline_id: pipeline.id, snapshot_id: snapshotId },
      });
      reads[`${key} metrics`] = { status: metrics.status, body: metrics.body };
    }
    const stages = await gateway.request('GET', '/pipelines/stages', {
      query: { pipeline_definition_id: definition.id, snapshot_id: snapshotId },
    });
    reads[`stages ${definition.id}`] = { status: stages.status, body: stages.body };
  }
  const rest = await gateway.request('GET', '/pipelines', { query: { snapshot_id: snapshotId } });
  expect(rest.status).toBe(200);
  const { snapshot_id: _id, ...pipelines } = rest.body;
  reads.pipelines = pipelines;
  return reads;
}
