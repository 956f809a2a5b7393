import { trusted } from 'mongoose';
import type { AuthenticatedContext } from '../../context/request-context';
import { BadUserInputError } from '../../errors';
import type { DealStates } from '../../domain/deal-states';
import {
  computeMovement,
  MOVEMENT_KINDS,
  type Movement,
  type MovementKind,
} from '../../domain/movement';
import type { SnapshotView } from '../../domain/snapshot-views';
import { dealStatesKey } from '../../loaders/pipeline.loaders';
import { heldAt, OpportunityModel } from '../../models/opportunity.model';
import { SETTINGS_ID } from '../../models/settings.model';
import { SnapshotModel } from '../../models/snapshot.model';
import { decodeCursor, encodeCursor } from '../pipeline-cursor';
import { MAX_PAGE, removedByRetention, type Page } from '../pipeline.service';
import {
  analysedPipeline,
  isoDay,
  resolveCloseWindow,
  resolveSpan,
  type ResolvedWindow,
} from './analysis-span';

export interface MovementRequest {
  pipelineId: string;
  /** A date `YYYY-MM-DD` or a snapshot id. */
  from: string;
  to: string;
  /** `period` (default), `all`, or `YYYY-MM-DD..YYYY-MM-DD`. */
  closeWindow?: string | null;
}

/** What moved in a pipeline between two snapshots (docs/analytics.md, "Pipeline movement"). */
export interface PipelineMovement {
  pipelineId: string;
  /** The configured currency; null while it is not set. */
  currency: string | null;
  window: ResolvedWindow['days'];
  from: SnapshotView;
  to: SnapshotView;
  movement: Movement;
  /** The deal states compared, for the deals of a bucket. */
  states: { from: DealStates | null; to: DealStates | null };
  definitionId: string;
}

/** One deal of a bucket: its state at both snapshots (null where it was not in the definition). */
export interface MovementDeal {
  dealId: string;
  name: string;
  ownerMemberId: string | null;
  amountFrom: number | null;
  amountTo: number | null;
  closeDateFrom: string | null;
  closeDateTo: string | null;
  stageFrom: string | null;
  stageTo: string | null;
}

/** Deal states through the loaders; absent because retention removed the snapshot meanwhile: its 404. */
export async function dealStatesOf(
  ctx: AuthenticatedContext,
  snapshotId: string,
  definitionId: string,
): Promise<DealStates | null> {
  try {
    return await ctx.loaders.dealStates.load(dealStatesKey(snapshotId, definitionId));
  } catch (error) {
    throw (await removedByRetention(ctx, snapshotId)) ?? error;
  }
}

/**
 * The movement of one pipeline between `from` and `to`: the open pipeline at each (the pipeline's
 * open deals whose close date lies in the window) and every deal of either in one bucket. Every
 * role may read it. Bad dates, window or `from` after `to`: 400; no snapshot at or before `from`:
 * 404 naming the earliest; a removed snapshot: 404 saying so; the pipeline in neither snapshot:
 * 404; close_window=period while the period is not set: 409.
 */
export async function getMovement(
  ctx: AuthenticatedContext,
  request: MovementRequest,
): Promise<PipelineMovement> {
  const span = await resolveSpan(ctx, request.from, request.to);
  const window = await resolveCloseWindow(ctx, request.closeWindow, span.to);
  const { pipeline, scope } = await analysedPipeline(ctx, request.pipelineId, [span.from, span.to]);
  const [from, to, settings] = await Promise.all([
    dealStatesOf(ctx, span.from.id, pipeline.definitionId),
    dealStatesOf(ctx, span.to.id, pipeline.definitionId),
    ctx.loaders.metricSettings.load(SETTINGS_ID),
  ]);
  return {
    pipelineId: pipeline.id,
    currency: settings.currency,
    window: window.days,
    from: span.from,
    to: span.to,
    movement: computeMovement(from, to, scope, window.window),
    states: { from, to },
    definitionId: pipeline.definitionId,
  };
}

/** `bucket` as asked: one of MOVEMENT_KINDS (400 naming them otherwise). */
export function parseMovementKind(value: string, field = 'bucket'): MovementKind {
  if ((MOVEMENT_KINDS as readonly string[]).includes(value)) return value as MovementKind;
  const message = `must be one of ${MOVEMENT_KINDS.join(', ')}`;
  throw new BadUserInputError(`Invalid ${field}: ${message}, got "${value.slice(0, 40)}"`, [
    { field, message },
  ]);
}

const amountOf = (states: DealStates | null, i: number) =>
  states && i >= 0 ? Math.round(states.amount[i] * 100) / 100 : null;
const closeOf = (states: DealStates | null, i: number) =>
  states && i >= 0 && !Number.isNaN(states.close[i]) ? isoDay(states.close[i]) : null;
const stageOf = (states: DealStates | null, i: number) =>
  states && i >= 0 ? states.stageIds[states.stage[i]] : null;
const memberOf = (states: DealStates | null, i: number) =>
  states && i >= 0 && states.member[i] >= 0 ? states.memberIds[states.member[i]] : null;

/** The names of deals as a snapshot holds them (one query for a page). */
export async function dealNames(
  snapshotId: string,
  definitionId: string,
  dealIds: readonly string[],
): Promise<Map<string, string>> {
  if (dealIds.length === 0) return new Map();
  const snapshot = await SnapshotModel.findById(snapshotId, { seq: 1 }).lean();
  if (!snapshot) return new Map();
  const docs = await OpportunityModel.find(
    { ...heldAt(snapshot.seq), definitionId, dealId: trusted({ $in: [...dealIds] }) },
    { _id: 0, dealId: 1, name: 1 },
  ).lean();
  return new Map(docs.map((doc) => [doc.dealId, doc.name ?? '']));
}

/**
 * A page of one bucket's deals, by deal id: amounts rounded to the cent as the bucket sums them,
 * close dates as days, the owner at `to` (else at `from`). Names are read for the page alone.
 */
export async function movementDeals(
  _ctx: AuthenticatedContext,
  answer: PipelineMovement,
  kind: MovementKind,
  options: { first?: number; after?: string | null },
): Promise<Page<MovementDeal> & { totalCount: number }> {
  const size = options.first ?? 20;
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE) {
    const message = `must be an integer from 1 to ${MAX_PAGE}`;
    throw new BadUserInputError(`Invalid first: ${message}, got ${String(options.first)}`, [
      { field: 'first', message },
    ]);
  }
  const after = options.after ? decodeCursor('m', options.after, 'after') : null;
  const code = MOVEMENT_KINDS.indexOf(kind);
  const { deals } = answer.movement;
  const { from, to } = answer.states;
  const idOf = (n: number) =>
    deals.from[n] >= 0 ? from!.ids[deals.from[n]] : to!.ids[deals.to[n]];
  const picked: number[] = [];
  let more = false;
  for (let n = 0; n < deals.count; n += 1) {
    if (deals.kind[n] !== code || (after !== null && !(idOf(n) > after))) continue;
    if (picked.length === size) {
      more = true;
      break;
    }
    picked.push(n);
  }
  const atTo = picked.filter((n) => deals.to[n] >= 0).map(idOf);
  const atFromOnly = picked.filter((n) => deals.to[n] < 0).map(idOf);
  const [namesTo, namesFrom] = await Promise.all([
    dealNames(answer.to.id, answer.definitionId, atTo),
    dealNames(answer.from.id, answer.definitionId, atFromOnly),
  ]);
  const nodes = picked.map((n): MovementDeal => {
    const i = deals.from[n];
    const j = deals.to[n];
    const id = idOf(n);
    return {
      dealId: id,
      name: namesTo.get(id) ?? namesFrom.get(id) ?? '',
      ownerMemberId: j >= 0 ? memberOf(to, j) : memberOf(from, i),
      amountFrom: amountOf(from, i),
      amountTo: amountOf(to, j),
      closeDateFrom: closeOf(from, i),
      closeDateTo: closeOf(to, j),
      stageFrom: stageOf(from, i),
      stageTo: stageOf(to, j),
    };
  });
  const last = nodes.at(-1);
  return {
    nodes,
    hasNextPage: more,
    endCursor: last ? encodeCursor('m', last.dealId) : null,
    totalCount: answer.movement.buckets[code].count,
  };
}
