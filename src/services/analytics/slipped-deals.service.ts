import type { AuthenticatedContext } from '../../context/request-context';
import { BadUserInputError } from '../../errors';
import { computeSlippedDeals } from '../../domain/slipped-deals';
import type { SnapshotView } from '../../domain/snapshot-views';
import { decodeCursor, encodeCursor, invalidCursor } from '../pipeline-cursor';
import { MAX_PAGE, type Page } from '../pipeline.service';
import { analysedPipeline, isoDay, resolveSpan } from './analysis-span';
import { dealNames, dealStatesOf } from './movement.service';

export interface SlippedDealsRequest {
  pipelineId: string;
  /** A date `YYYY-MM-DD` or a snapshot id. */
  from: string;
  to: string;
  /** Page size, 1..100; default 20. */
  first?: number;
  after?: string | null;
}

export interface SlippedDealView {
  dealId: string;
  name: string;
  ownerMemberId: string | null;
  stageId: string;
  amount: number;
  timesPushed: number;
  /** Whole days from `closeDateFirst` to `closeDateNow`; null when either is missing. */
  daysPushed: number | null;
  closeDateFirst: string | null;
  closeDateNow: string | null;
}

export interface PipelineSlippedDeals extends Page<SlippedDealView> {
  pipelineId: string;
  from: SnapshotView;
  to: SnapshotView;
  /** Slipped deals in all pages. */
  totalCount: number;
}

const cursorOf = (deal: { daysPushed: number | null; dealId: string }) =>
  encodeCursor('d', `${deal.daysPushed ?? ''}|${deal.dealId}`);

/**
 * The pipeline's open deals at `to` whose close date moved later at least once after `from`'s
 * snapshot (docs/analytics.md, "Slipped deals"), the most days pushed first. Every role may read
 * it. Errors as for movement.
 */
export async function getSlippedDeals(
  ctx: AuthenticatedContext,
  request: SlippedDealsRequest,
): Promise<PipelineSlippedDeals> {
  const size = request.first ?? 20;
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE) {
    const message = `must be an integer from 1 to ${MAX_PAGE}`;
    throw new BadUserInputError(`Invalid first: ${message}, got ${String(request.first)}`, [
      { field: 'first', message },
    ]);
  }
  let after: { daysPushed: number | null; dealId: string } | null = null;
  if (request.after) {
    const position = decodeCursor('d', request.after, 'after');
    const bar = position.indexOf('|');
    const days = position.slice(0, bar);
    if (bar < 0 || (days !== '' && !/^-?\d+$/.test(days)))
      throw invalidCursor(request.after, 'after');
    after = { daysPushed: days === '' ? null : Number(days), dealId: position.slice(bar + 1) };
  }
  const span = await resolveSpan(ctx, request.from, request.to);
  const { pipeline, scope } = await analysedPipeline(ctx, request.pipelineId, [span.from, span.to]);
  const states = await dealStatesOf(ctx, span.to.id, pipeline.definitionId);
  const all = computeSlippedDeals(states, scope, span.from.snapshotAt.getTime());
  const days = (d: number | null) => d ?? -Infinity;
  const start = after
    ? all.findIndex(
        (deal) =>
          days(deal.daysPushed) < days(after.daysPushed) ||
          (days(deal.daysPushed) === days(after.daysPushed) && deal.dealId > after.dealId),
      )
    : 0;
  const page = start < 0 ? [] : all.slice(start, start + size);
  const names = await dealNames(
    span.to.id,
    pipeline.definitionId,
    page.map((d) => d.dealId),
  );
  const nodes = page.map((deal): SlippedDealView => {
    const i = deal.index;
    return {
      dealId: deal.dealId,
      name: names.get(deal.dealId) ?? '',
      ownerMemberId: states!.member[i] >= 0 ? states!.memberIds[states!.member[i]] : null,
      stageId: states!.stageIds[states!.stage[i]],
      amount: Math.round(states!.amount[i] * 100) / 100,
      timesPushed: deal.timesPushed,
      daysPushed: deal.daysPushed,
      closeDateFirst: Number.isNaN(deal.closeFirst) ? null : isoDay(deal.closeFirst),
      closeDateNow: Number.isNaN(deal.closeNow) ? null : isoDay(deal.closeNow),
    };
  });
  const last = nodes.at(-1);
  return {
    pipelineId: pipeline.id,
    from: span.from,
    to: span.to,
    totalCount: all.length,
    nodes,
    hasNextPage: start >= 0 && start + size < all.length,
    endCursor: last ? cursorOf(last) : null,
  };
}
