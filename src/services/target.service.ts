import type { AuthenticatedContext } from '../context/request-context';
import { PeriodUnit, periodLabels, periodsPerYear } from '../domain/period';
import { BadUserInputError, ConflictError, NotFoundError, type FieldError } from '../errors';
import { TargetDoc, TargetModel } from '../models/target.model';
import { describeValue } from '../validation/describe-value';
import { isDuplicateKeyError } from './duplicate-key';
import { assertCanReadTargets, assertCanSetTargets } from './member-access';
import { getMember } from './member.service';
import { readAccountSettings } from './settings.service';
import { targetUpdated } from '../events/change-events';
import { pushEvents, withEvents } from '../events/outbox/outbox-entry';
import type { MemberDoc } from '../models/member.model';

/** Years targets may be set for: wide enough for any plan, narrow enough to catch typos (`20266`). */
export const TARGET_YEARS = { min: 2000, max: 2100 } as const;

/** One member's targets for one year, labelled by period. */
export interface TargetSet {
  memberId: string;
  year: number;
  period: PeriodUnit;
  currency: string;
  targets: Array<{ period: string; amount: number }>;
}

export interface SetTargetsInput {
  memberId: string;
  /** Defaults to the current UTC year. */
  year?: number | null;
  /** One amount per period of the configured unit, in time order. */
  amounts: unknown[];
}

/** Labels a stored set: `amounts[i]` belongs to the i-th period of its unit. */
export function toTargetSet(doc: TargetDoc): TargetSet {
  const labels = periodLabels(doc.period);
  return {
    memberId: doc.memberId,
    year: doc.year,
    period: doc.period,
    currency: doc.currency,
    targets: doc.amounts.map((amount, i) => ({ period: labels[i], amount })),
  };
}

/** The year asked for, or the current UTC year; 400 naming `year` outside TARGET_YEARS. */
export function resolveTargetYear(year: number | null | undefined): number {
  if (year === undefined || year === null) return new Date().getUTCFullYear();
  if (!Number.isInteger(year) || year < TARGET_YEARS.min || year > TARGET_YEARS.max) {
    const message = `must be a whole year from ${TARGET_YEARS.min} to ${TARGET_YEARS.max}, got ${describeValue(year)}`;
    throw new BadUserInputError(`Invalid year: ${message}`, [{ field: 'year', message }]);
  }
  return year;
}

/** Every problem with the amounts, each named by its index (`targets[3]`). */
function checkAmounts(amounts: unknown[], period: PeriodUnit): FieldError[] {
  const expected = periodsPerYear(period);
  const errors: FieldError[] = [];
  if (amounts.length !== expected) {
    errors.push({
      field: 'targets',
      message: `expected ${expected} amounts (one per ${period} period: ${periodLabels(period)[0]}–${periodLabels(period)[expected - 1]}), got ${amounts.length}`,
    });
  }
  amounts.forEach((amount, i) => {
    if (typeof amount !== 'number' || !Number.isFinite(amount) || amount < 0) {
      errors.push({
        field: `targets[${i}]`,
        message: `expected a finite number of 0 or more, got ${describeValue(amount)}`,
      });
    }
  });
  return errors;
}

/**
 * Replaces (or creates) the one set of a member and year. Update first, insert when there was
 * nothing to update; the unique `{memberId, year}` index turns a concurrent insert into a
 * duplicate-key error, after which the update is retried. Only plain update/insert commands are
 * used, not upserts, so any MongoDB-compatible store answers the same.
 */
async function replaceTargets(
  member: Pick<MemberDoc, '_id' | 'teamId'>,
  year: number,
  values: Pick<TargetDoc, 'period' | 'currency' | 'amounts'>,
): Promise<void> {
  const filter = { memberId: member._id, year };
  // Each write carries the event; only the one that lands publishes it.
  const event = () =>
    targetUpdated(member, toTargetSet({ ...filter, ...values } as TargetDoc) as TargetSet);
  const update = () => ({ $set: values, ...pushEvents(event()) });
  if ((await TargetModel.updateOne(filter, update()).exec()).matchedCount > 0) return;
  try {
    await TargetModel.create({ ...filter, ...values, ...withEvents(event()) });
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
    await TargetModel.updateOne(filter, update()).exec();
  }
}

/**
 * Replaces a member's targets for one year. Checks, in order: year (400), member (404), role table
 * (403), period and currency set (409), amounts (400, each bad element named by index). The
 * period and currency in force are stored with the amounts.
 */
export async function setMemberTargets(
  ctx: AuthenticatedContext,
  input: SetTargetsInput,
): Promise<TargetSet> {
  const year = resolveTargetYear(input.year);
  const member = await getMember(ctx, input.memberId);
  assertCanSetTargets(ctx.principal, member);
  const { period, currency } = await readAccountSettings();
  if (!period || !currency) {
    const missing = [!period && 'period', !currency && 'currency'].filter(Boolean);
    throw new ConflictError(
      `Targets cannot be set before the ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} set; an admin sets ${missing.length > 1 ? 'them' : 'it'} under /settings`,
    );
  }
  const errors = checkAmounts(input.amounts, period);
  if (errors.length > 0) {
    const shown = errors
      .slice(0, 3)
      .map((e) => `${e.field}: ${e.message}`)
      .join('; ');
    throw new BadUserInputError(
      `Invalid targets: ${shown}${errors.length > 3 ? ` (and ${errors.length - 3} more)` : ''}`,
      errors,
    );
  }
  const amounts = input.amounts as number[];
  await replaceTargets(member, year, { period, currency, amounts });
  const saved = await TargetModel.findOne({ memberId: member._id, year }).lean<TargetDoc>().exec();
  // Only a concurrent delete of the member (which takes its targets) can get here.
  if (!saved) throw new NotFoundError(`Member ${member._id} not found`);
  return toTargetSet(saved);
}

/**
 * A member's targets for one year (default: the current one), null when none are set. Checks, in
 * order: year (400), member (404), role table (403). Through the request's loaders, so the targets
 * of every member of a GraphQL list are read in one batch.
 */
export async function findMemberTargets(
  ctx: AuthenticatedContext,
  memberId: string,
  year?: number | null,
): Promise<TargetSet | null> {
  const resolvedYear = resolveTargetYear(year);
  const member = await getMember(ctx, memberId);
  assertCanReadTargets(ctx.principal, member);
  const doc = await ctx.loaders.targetsByMember.load({ memberId, year: resolvedYear });
  return doc ? toTargetSet(doc) : null;
}

/** Reads a member's targets for one year (default: the current one); 404 when none are set. */
export async function getMemberTargets(
  ctx: AuthenticatedContext,
  memberId: string,
  year?: number | null,
): Promise<TargetSet> {
  const set = await findMemberTargets(ctx, memberId, year);
  if (!set)
    throw new NotFoundError(`No targets set for member ${memberId} in ${resolveTargetYear(year)}`);
  return set;
}
