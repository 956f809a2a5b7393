import { trusted } from 'mongoose';
import type { AuthenticatedContext } from '../context/request-context';
import { BadUserInputError, NotFoundError } from '../errors';
import { LATEST } from '../loaders/pipeline.loaders';
import { removalMessage } from '../import/prune-snapshots';
import { rowOf, type OpportunityRow } from '../import/snapshot-writer';
import { heldAt, OpportunityModel } from '../models/opportunity.model';
import { PrunedSnapshotModel, type PrunedSnapshotDoc } from '../models/pruned-snapshot.model';
import { SnapshotModel } from '../models/snapshot.model';
import { decodeCursor, encodeCursor, invalidCursor } from './pipeline-cursor';
import { DefinitionView, PipelineView, SnapshotView, StageView } from '../domain/snapshot-views';

export type { DefinitionView, PipelineView, SnapshotView, StageView };

/** A page of a connection: the items, and where the next page starts. */
export interface Page<T> {
  nodes: T[];
  endCursor: string | null;
  hasNextPage: boolean;
}

/** An opportunity as a snapshot holds it: its stored state, `id` the HubSpot deal id. */
export type OpportunityView = Omit<OpportunityRow, 'dealId'> & { snapshotId: string; id: string };

export interface OpportunityFilter {
  /** Page size, 1..100; default 20. */
  first?: number;
  after?: string | null;
  stageId?: string | null;
  /** true: open ones only; false: closed (won or lost) ones only. */
  open?: boolean | null;
}

export const MAX_PAGE = 100;
const DEFAULT_PAGE = 20;

function pageSize(first: number | undefined, field = 'first'): number {
  const size = first ?? DEFAULT_PAGE;
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE) {
    const message = `must be an integer from 1 to ${MAX_PAGE}`;
    throw new BadUserInputError(`Invalid ${field}: ${message}, got ${String(first)}`, [
      { field, message },
    ]);
  }
  return size;
}

/** The cursor pointing after a snapshot (snapshots are listed newest first). */
export function snapshotCursor(snapshot: SnapshotView): string {
  return encodeCursor('s', `${snapshot.snapshotAt.toISOString()}|${snapshot.id}`);
}

/** The cursor pointing after an opportunity (opportunities are listed by deal id). */
export function opportunityCursor(opportunity: Pick<OpportunityView, 'id'>): string {
  return encodeCursor('o', opportunity.id);
}

/**
 * The snapshot a read is about: `snapshotId` when given (404 if it is unknown, not committed or
 * removed, which the message says), else the latest committed one (404 before the
 * first import).
 */
export async function resolveSnapshot(
  ctx: AuthenticatedContext,
  snapshotId?: string | null,
): Promise<SnapshotView> {
  if (snapshotId) {
    const snapshot = await ctx.loaders.snapshot.load(snapshotId);
    if (!snapshot) throw await snapshotNotFound(ctx, snapshotId);
    return snapshot;
  }
  const latest = await ctx.loaders.latestSnapshot.load(LATEST);
  if (!latest)
    throw new NotFoundError('No pipeline snapshot yet: import CRM data first (POST /crm/imports)');
  return latest;
}

/** The 404 of a snapshot id no committed snapshot has: why, when it was removed. */
async function snapshotNotFound(
  ctx: AuthenticatedContext,
  snapshotId: string,
): Promise<NotFoundError> {
  return (
    (await removedByRetention(ctx, snapshotId)) ??
    new NotFoundError(`Snapshot ${snapshotId} not found`)
  );
}

/**
 * The 404 saying `snapshotId` was removed (by retention, or by an admin), or null when it was not.
 * Also asked when a read of a snapshot that was there when the request began finds it gone: it was
 * removed meanwhile, which is the client's 404, not a broken import.
 */
export async function removedByRetention(
  _ctx: AuthenticatedContext,
  snapshotId: string,
): Promise<NotFoundError | null> {
  const pruned = await PrunedSnapshotModel.findById(snapshotId, {
    snapshotAt: 1,
    prunedAt: 1,
    removedBy: 1,
    retentionDays: 1,
  }).lean<PrunedSnapshotDoc>();
  return pruned ? new NotFoundError(removalMessage(pruned)) : null;
}

/** The definitions of a snapshot, by display order. */
export function listDefinitions(
  ctx: AuthenticatedContext,
  snapshotId: string,
): Promise<DefinitionView[]> {
  return ctx.loaders.definitionsBySnapshot.load(snapshotId);
}

/** The pipelines of one definition: the complete one, then teams, then members. */
export async function pipelinesOfDefinition(
  ctx: AuthenticatedContext,
  snapshotId: string,
  definitionId: string,
): Promise<PipelineView[]> {
  const pipelines = await ctx.loaders.pipelinesBySnapshot.load(snapshotId);
  return pipelines.filter((p) => p.definitionId === definitionId);
}

/** One definition of a snapshot (latest by default); 404 when it is not in it. */
export async function getDefinition(
  ctx: AuthenticatedContext,
  definitionId: string,
  snapshotId?: string | null,
): Promise<DefinitionView> {
  const snapshot = await resolveSnapshot(ctx, snapshotId);
  const definition = (await listDefinitions(ctx, snapshot.id)).find((d) => d.id === definitionId);
  if (!definition)
    throw new NotFoundError(
      `Pipeline definition ${definitionId} not found in snapshot ${snapshot.id}`,
    );
  return definition;
}

/** The definition of a pipeline (always present: pipelines are written with their definition). */
export async function definitionOf(
  ctx: AuthenticatedContext,
  pipeline: PipelineView,
): Promise<DefinitionView | null> {
  return (
    (await listDefinitions(ctx, pipeline.snapshotId)).find((d) => d.id === pipeline.definitionId) ??
    null
  );
}

/** One pipeline of a snapshot (latest by default); 404 when it is not in it. */
export async function getPipeline(
  ctx: AuthenticatedContext,
  pipelineId: string,
  snapshotId?: string | null,
): Promise<PipelineView> {
  const snapshot = await resolveSnapshot(ctx, snapshotId);
  const pipeline = await findPipeline(ctx, snapshot.id, pipelineId);
  if (!pipeline)
    throw new NotFoundError(`Pipeline ${pipelineId} not found in snapshot ${snapshot.id}`);
  return pipeline;
}

export async function findPipeline(
  ctx: AuthenticatedContext,
  snapshotId: string,
  pipelineId: string,
): Promise<PipelineView | null> {
  return (
    (await ctx.loaders.pipelinesBySnapshot.load(snapshotId)).find((p) => p.id === pipelineId) ??
    null
  );
}

/** Sub-pipelines of a team or a member in the latest snapshot; none before the first import. */
export async function pipelinesOwnedBy(
  ctx: AuthenticatedContext,
  owner: { teamId: string } | { memberId: string },
): Promise<PipelineView[]> {
  const latest = await ctx.loaders.latestSnapshot.load(LATEST);
  if (!latest) return [];
  const pipelines = await ctx.loaders.pipelinesBySnapshot.load(latest.id);
  return 'teamId' in owner
    ? pipelines.filter((p) => p.kind === 'team' && p.teamId === owner.teamId)
    : pipelines.filter((p) => p.kind === 'member' && p.memberId === owner.memberId);
}

/** Committed snapshots, newest first (`snapshotAt`, then id, descending). */
export async function listSnapshots(
  _ctx: AuthenticatedContext,
  options: { first?: number; after?: string | null },
): Promise<Page<SnapshotView>> {
  const size = pageSize(options.first);
  const filter: Record<string, unknown> = { status: 'committed' };
  if (options.after) {
    const position = decodeCursor('s', options.after, 'after');
    const bar = position.indexOf('|');
    const at = new Date(position.slice(0, bar));
    if (bar < 0 || Number.isNaN(at.getTime())) throw invalidCursor(options.after, 'after');
    const id = position.slice(bar + 1);
    // trusted(): the operators are ours, the cursor only supplies values (filters are sanitised globally).
    filter.$or = [
      { snapshotAt: trusted({ $lt: at }) },
      { snapshotAt: at, _id: trusted({ $lt: id }) },
    ];
  }
  const docs = await SnapshotModel.find(filter, { snapshotAt: 1 })
    .sort({ snapshotAt: -1, _id: -1 })
    .limit(size + 1)
    .lean();
  const nodes = docs
    .slice(0, size)
    .map((doc) => ({ id: doc._id, snapshotAt: new Date(doc.snapshotAt) }));
  const last = nodes.at(-1);
  return {
    nodes,
    hasNextPage: docs.length > size,
    endCursor: last ? snapshotCursor(last) : null,
  };
}

/** The opportunities of a pipeline in its snapshot, by deal id, with optional stage and open filters. */
export async function listOpportunities(
  _ctx: AuthenticatedContext,
  pipeline: PipelineView,
  options: OpportunityFilter,
): Promise<Page<OpportunityView>> {
  // One query per page, on demand: pages are not batched (each pipeline has its own cursor).
  const size = pageSize(options.first);
  // The pipeline's snapshot is committed: its seq never changes.
  const snapshot = await SnapshotModel.findById(pipeline.snapshotId, { seq: 1 })

    .lean();
  if (!snapshot)
    throw new Error(`snapshot ${pipeline.snapshotId} of pipeline ${pipeline.id} does not exist`);
  const filter: Record<string, unknown> = {
    ...heldAt(snapshot.seq),
    definitionId: pipeline.definitionId,
  };
  if (pipeline.kind === 'team') filter.teamId = pipeline.teamId;
  if (pipeline.kind === 'member') filter.memberId = pipeline.memberId;
  if (options.stageId) filter.stageId = options.stageId;
  if (options.open === true) filter.outcome = 'open';
  if (options.open === false) filter.outcome = trusted({ $in: ['won', 'lost'] });
  if (options.after) filter.dealId = trusted({ $gt: decodeCursor('o', options.after, 'after') });
  const docs = await OpportunityModel.find(filter)
    .sort({ dealId: 1 })
    .limit(size + 1)

    .lean();
  const nodes: OpportunityView[] = docs.slice(0, size).map((doc) => {
    const { dealId, ...state } = rowOf(doc);
    return { snapshotId: pipeline.snapshotId, id: dealId, ...state };
  });
  const last = nodes.at(-1);
  return {
    nodes,
    hasNextPage: docs.length > size,
    endCursor: last ? opportunityCursor(last) : null,
  };
}
