import { trusted } from 'mongoose';
import type { AuthenticatedContext } from '../context/request-context';
import { OUTCOME_CODES, type DealStates } from '../domain/deal-states';
import { cents, computeMovement } from '../domain/movement';
import { dealStatesKey } from '../loaders/pipeline.loaders';
import { DealStatesModel } from '../models/deal-states.model';
import { pipelineIdOf } from '../models/pipeline.model';
import type { EventType } from './event-types';
import { derivedEventId, type NewEvent } from './outbox/publish';
import type { CommittedSnapshot } from './snapshot-events';

const OUTCOMES = ['open', 'won', 'lost'] as const;

/** One deal in one snapshot: its definition's states and its index there. */
interface DealAt {
  states: DealStates;
  i: number;
}

function day(ms: number): string | null {
  return Number.isNaN(ms) ? null : new Date(ms).toISOString().slice(0, 10);
}

function stageOf({ states, i }: DealAt): string {
  return states.stageIds[states.stage[i]];
}

function memberOf({ states, i }: DealAt): string | null {
  return states.member[i] >= 0 ? states.memberIds[states.member[i]] : null;
}

function teamOf({ states, i }: DealAt): string | null {
  return states.team[i] >= 0 ? states.teamIds[states.team[i]] : null;
}

/** The pipelines a deal is in: its definition's, its team's and its owner's. */
function pipelinesOf(deal: DealAt): string[] {
  const { definitionId } = deal.states;
  const team = teamOf(deal);
  const member = memberOf(deal);
  return [
    definitionId,
    ...(team === null ? [] : [pipelineIdOf(definitionId, 'team', team)]),
    ...(member === null ? [] : [pipelineIdOf(definitionId, 'member', member)]),
  ];
}

/** What a deal is at a snapshot, as `deal.created`, `deal.won`, `deal.lost` and `deal.removed` tell it. */
function stateData(deal: DealAt): Record<string, unknown> {
  const { states, i } = deal;
  return {
    stage: stageOf(deal),
    outcome: OUTCOMES[states.outcome[i]],
    amount: states.amount[i],
    close_date: day(states.close[i]),
    owner_member_id: memberOf(deal),
  };
}

/**
 * The events of one deal between two snapshots (`from` null: new; `to` null: gone), in the order a
 * reader would tell them: created or removed alone; else the stage, the close date, the amount,
 * then won or lost when the deal closed in between.
 */
function changesOf(
  from: DealAt | null,
  to: DealAt | null,
): Array<{ type: EventType; data: Record<string, unknown> }> {
  if (from === null && to === null) return [];
  if (from === null) return [{ type: 'deal.created', data: stateData(to!) }];
  if (to === null) return [{ type: 'deal.removed', data: stateData(from) }];
  const changes: Array<{ type: EventType; data: Record<string, unknown> }> = [];
  const [stageFrom, stageTo] = [stageOf(from), stageOf(to)];
  if (stageFrom !== stageTo || from.states.definitionId !== to.states.definitionId)
    changes.push({
      type: 'deal.stage_changed',
      data: { from_stage: stageFrom, to_stage: stageTo },
    });
  const [closeFrom, closeTo] = [from.states.close[from.i], to.states.close[to.i]];
  if (day(closeFrom) !== day(closeTo))
    changes.push({
      type: 'deal.close_date_changed',
      data: {
        from: day(closeFrom),
        to: day(closeTo),
        pushed: !Number.isNaN(closeFrom) && !Number.isNaN(closeTo) && closeTo > closeFrom,
      },
    });
  const [amountFrom, amountTo] = [from.states.amount[from.i], to.states.amount[to.i]];
  if (cents(amountFrom) !== cents(amountTo))
    changes.push({ type: 'deal.amount_changed', data: { from: amountFrom, to: amountTo } });
  const [outcomeFrom, outcomeTo] = [from.states.outcome[from.i], to.states.outcome[to.i]];
  if (outcomeFrom !== outcomeTo && outcomeTo === OUTCOME_CODES.won)
    changes.push({ type: 'deal.won', data: stateData(to) });
  if (outcomeFrom !== outcomeTo && outcomeTo === OUTCOME_CODES.lost)
    changes.push({ type: 'deal.lost', data: stateData(to) });
  return changes;
}

/**
 * The deal events of a snapshot's commit: each deal compared between the snapshot of the import
 * before (`previous`) and this one, paired by id the way pipeline movement pairs them
 * (domain/movement.ts), per pipeline definition; a deal that left one definition for another is
 * one deal whose stage changed, not one removed and one created. A first import (no `previous`)
 * emits none, nor does a previous snapshot written before deal states were kept (every deal would
 * read as created). Ids are derived from the type, the deal and the snapshot: deriving again after
 * a crash yields the same events. Deals are readable by every role, so the events are public;
 * their audience is the deal's pipelines and teams at both snapshots, for filters.
 */
export async function deriveDealEvents(
  context: () => AuthenticatedContext,
  snapshot: CommittedSnapshot,
  previous: CommittedSnapshot | null,
): Promise<NewEvent[]> {
  if (previous === null) return [];
  const heads = await DealStatesModel.find(
    { snapshotId: trusted({ $in: [previous._id, snapshot._id] }), chunk: 0 },
    { snapshotId: 1, definitionId: 1 },
  ).lean<Array<{ snapshotId: string; definitionId: string }>>();
  if (previous.counts.deals > 0 && !heads.some((h) => h.snapshotId === previous._id)) return [];
  const ctx = context();
  const definitions = [...new Set(heads.map((h) => h.definitionId))].sort();
  const pairs: Array<[DealAt | null, DealAt | null]> = [];
  // Deals gone from one definition or new in one, by id: a deal in both moved between them.
  const gone = new Map<string, DealAt>();
  const added = new Map<string, DealAt>();
  for (const definitionId of definitions) {
    const [a, b] = await ctx.loaders.dealStates.loadMany([
      dealStatesKey(previous._id, definitionId),
      dealStatesKey(snapshot._id, definitionId),
    ]);
    if (a instanceof Error) throw a;
    if (b instanceof Error) throw b;
    const { deals } = computeMovement(a, b, { kind: 'complete' }, null);
    for (let n = 0; n < deals.count; n += 1) {
      const from = deals.from[n] >= 0 ? { states: a!, i: deals.from[n] } : null;
      const to = deals.to[n] >= 0 ? { states: b!, i: deals.to[n] } : null;
      if (from && to) pairs.push([from, to]);
      else if (from) gone.set(a!.ids[from.i], from);
      else if (to) added.set(b!.ids[to.i], to);
    }
  }
  for (const [id, from] of gone) {
    pairs.push([from, added.get(id) ?? null]);
    added.delete(id);
  }
  for (const to of added.values()) pairs.push([null, to]);

  const events: NewEvent[] = [];
  for (const [from, to] of pairs) {
    const deal = (to ?? from)!;
    const dealId = deal.states.ids[deal.i];
    const sides = [from, to].filter((side): side is DealAt => side !== null);
    const pipelineIds = [...new Set(sides.flatMap(pipelinesOf))];
    const teamIds = [...new Set(sides.map(teamOf).filter((t): t is string => t !== null))];
    for (const { type, data } of changesOf(from, to)) {
      events.push({
        _id: derivedEventId('deal', type, dealId, snapshot._id),
        type,
        at: snapshot.importedAt,
        data: {
          deal_id: dealId,
          pipeline_ids: pipelineIds,
          ...data,
          snapshot_id: snapshot._id,
          previous_snapshot_id: previous._id,
        },
        audience: { pipelineIds, teamIds },
        privacy: { kind: 'public' },
      });
    }
  }
  return events;
}
