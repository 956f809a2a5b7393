import type { RequestContext } from '../../context/request-context';
import { Role } from '../../auth/role';
import { ForbiddenError } from '../../errors';
import { membersNow } from '../../loaders/in-memory';
import type { MemberDoc } from '../../models/member.model';
import { canReadTargets } from '../member-access';
import type { MetricDefinition } from './catalogue';

/**
 * The role table's confidentiality rule, applied to values derived from targets. A metric that
 * divides by the targets of a pipeline's members (quota_attainment, pipeline_coverage) reveals
 * them: won amount ÷ attainment is the target. So such a value is shown only to a caller who may
 * read the targets of every member it sums (`canReadTargets`): a member on their own member
 * pipeline, a manager on pipelines whose members are all in their team, an admin everywhere.
 *
 * The members checked are all the pipeline's members, whether or not they have targets, so the
 * answer does not reveal who has targets either. A member deleted since the snapshot has had its
 * targets deleted with it and sums nothing, unless a target of theirs is still there.
 */
export async function mayReadTargetsOfAll(
  ctx: RequestContext,
  memberIds: Iterable<string>,
  targets: ReadonlyArray<{ memberId: string }>,
): Promise<boolean> {
  const others = othersThanCaller(ctx, memberIds);
  if (typeof others === 'boolean') return others;
  return mayReadTargetsOf(ctx, others, await ctx.loaders.memberById.loadMany(others), targets);
}

/** mayReadTargetsOfAll without waiting, when the members are cached (in-memory.ts); undefined otherwise. */
export function mayReadTargetsOfAllNow(
  ctx: RequestContext,
  memberIds: Iterable<string>,
  targets: ReadonlyArray<{ memberId: string }>,
): boolean | undefined {
  const others = othersThanCaller(ctx, memberIds);
  if (typeof others === 'boolean') return others;
  const members = membersNow(ctx, others);
  return members && mayReadTargetsOf(ctx, others, members, targets);
}

/** The members other than the caller to check; or the answer, where the caller alone decides it. */
function othersThanCaller(ctx: RequestContext, memberIds: Iterable<string>): string[] | boolean {
  const principal = ctx.principal;
  if (principal === null) return false;
  if (principal.role === Role.ADMIN) return true;
  const others = [...new Set(memberIds)].filter((id) => id !== principal.memberId);
  return others.length === 0 ? true : others;
}

function mayReadTargetsOf(
  ctx: RequestContext,
  others: readonly string[],
  members: ReadonlyArray<MemberDoc | Error | null>,
  targets: ReadonlyArray<{ memberId: string }>,
): boolean {
  return members.every((member, i) => {
    if (member instanceof Error) throw member;
    if (member) return canReadTargets(ctx.principal!, member);
    return !targets.some((target) => target.memberId === others[i]);
  });
}

/** Whether a metric is derived from targets (and so falls under `mayReadTargetsOfAll`). */
export function derivedFromTargets(definition: MetricDefinition): boolean {
  return definition.requires.targets;
}

/** Why a caller gets no target-derived metric: the text of a 403 and of the status message. */
export const WITHHELD_REASON =
  "derived from the targets of the pipeline's members, which this caller may not all read";

/** The 403 for target-derived metrics asked for by name. */
export function withheldError(definitions: readonly MetricDefinition[]): ForbiddenError {
  const names = definitions.map((d) => d.apiCodename).join(', ');
  return new ForbiddenError(
    `${names} ${definitions.length > 1 ? 'are' : 'is'} not available to this caller: ${WITHHELD_REASON} ` +
      '(a member reads their own targets, a manager those of their own team, an admin all)',
  );
}
