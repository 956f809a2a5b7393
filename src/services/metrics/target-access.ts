import type { AuthenticatedContext } from '../../context/request-context';
import { Role } from '../../auth/role';
import { ForbiddenError } from '../../errors';
import { canReadTargets } from '../member-access';
import type { MetricDefinition } from '../../domain/metric-catalogue';

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
  ctx: AuthenticatedContext,
  memberIds: Iterable<string>,
  targets: ReadonlyArray<{ memberId: string }>,
): Promise<boolean> {
  const { principal } = ctx;
  if (principal.role === Role.ADMIN) return true;
  const others = [...new Set(memberIds)].filter((id) => id !== principal.memberId);
  const members = await ctx.loaders.memberById.loadMany(others);
  return members.every((member, i) => {
    if (member instanceof Error) throw member;
    if (member) return canReadTargets(principal, member);
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
