import { Arg, Args, Ctx, FieldResolver, ID, Query, Resolver, Root } from 'type-graphql';
import type { AuthenticatedContext } from '../../context/request-context';
import {
  listDefinitions,
  listSnapshots,
  resolveSnapshot,
  snapshotCursor,
} from '../../services/pipeline.service';
import { PipelinePageArgs } from './pipeline.args';
import { PipelineDefinition, toPipelineDefinition } from './pipeline-definition.type';
import {
  PipelineSnapshot,
  PipelineSnapshotConnection,
  toPipelineSnapshot,
} from './pipeline-snapshot.type';
import { listComplexity, pageComplexity } from '../../security/field-costs';

@Resolver(() => PipelineSnapshot)
export class PipelineSnapshotResolver {
  @Query(() => PipelineSnapshot, {
    description:
      'A committed snapshot; the latest when `id` is omitted. NOT_FOUND before the first import.',
  })
  async snapshot(
    @Arg('id', () => ID, { nullable: true }) id: string | null,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<PipelineSnapshot> {
    return toPipelineSnapshot(await resolveSnapshot(ctx, id));
  }

  @Query(() => PipelineSnapshotConnection, {
    description: 'Committed snapshots, newest first.',
    complexity: pageComplexity,
  })
  async snapshots(
    @Args() args: PipelinePageArgs,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<PipelineSnapshotConnection> {
    const page = await listSnapshots(ctx, { first: args.first, after: args.after });
    return {
      edges: page.nodes.map((node) => ({
        cursor: snapshotCursor(node),
        node: toPipelineSnapshot(node),
      })),
      pageInfo: { hasNextPage: page.hasNextPage, endCursor: page.endCursor },
    };
  }

  @FieldResolver(() => [PipelineDefinition], {
    description: 'By display order.',
    complexity: listComplexity,
  })
  async definitions(
    @Root() snapshot: PipelineSnapshot,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<PipelineDefinition[]> {
    return (await listDefinitions(ctx, snapshot.id)).map(toPipelineDefinition);
  }
}
