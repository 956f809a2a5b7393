import type { AuthenticatedContext } from '../context/request-context';
import { PeriodUnit, isPeriodUnit, periodLabels } from '../domain/period';
import { BadUserInputError, ConflictError, NotFoundError } from '../errors';
import { SETTINGS_ID, SettingsDoc, SettingsModel } from '../models/settings.model';
import { TargetModel } from '../models/target.model';
import { isCurrencyCode } from '../validation/rules';
import { requireAdmin } from './member-access';
import { settingsUpdated } from '../events/change-events';
import { pushEvents } from '../events/outbox/outbox-entry';

/** The account settings as far as they are set; what metrics and targets read. */
export interface AccountSettings {
  currency: string | null;
  period: PeriodUnit | null;
}

export interface PeriodSetting {
  period: PeriodUnit;
  /** The period labels of one year: `["Q1","Q2","Q3","Q4"]`. */
  values: string[];
}

export interface SetPeriodResult extends PeriodSetting {
  /** False when the period was already this one (a no-op). */
  changed: boolean;
  /** Target sets deleted because `resetTargets` was given. */
  targetsDeleted: number;
}

/** Reads the settings without a role check: for services (targets, metrics), not for transports. */
export async function readAccountSettings(): Promise<AccountSettings> {
  const doc = await SettingsModel.findById(SETTINGS_ID).lean<SettingsDoc>().exec();
  return { currency: doc?.currency ?? null, period: doc?.period ?? null };
}

/** Every role may read the settings; unset values are null. */
export async function getSettings(_ctx: AuthenticatedContext): Promise<AccountSettings> {
  return readAccountSettings();
}

export async function getCurrency(_ctx: AuthenticatedContext): Promise<string> {
  const { currency } = await readAccountSettings();
  if (!currency)
    throw new NotFoundError(
      'The currency has not been set yet; an admin sets it with POST /settings/currencies',
    );
  return currency;
}

/** Admin only. Any case in, stored upper-case. Targets keep the currency they were set in. */
export async function setCurrency(ctx: AuthenticatedContext, currency: string): Promise<string> {
  requireAdmin(ctx.principal, 'set the currency');
  if (!isCurrencyCode(currency)) {
    throw new BadUserInputError(
      `Invalid currency: expected an ISO 4217 code such as EUR or USD, got "${String(currency).slice(0, 40)}"`,
      [{ field: 'currency', message: 'must be an ISO 4217 currency code such as EUR or USD' }],
    );
  }
  const code = currency.toUpperCase();
  await SettingsModel.updateOne(
    { _id: SETTINGS_ID },
    { $set: { currency: code }, ...pushEvents(settingsUpdated({ currency: code })) },
    { upsert: true },
  ).exec();
  return code;
}

export async function getPeriod(_ctx: AuthenticatedContext): Promise<PeriodSetting> {
  const { period } = await readAccountSettings();
  if (!period)
    throw new NotFoundError(
      'The period has not been set yet; an admin sets it with POST /settings/periods',
    );
  return { period, values: periodLabels(period) };
}

/**
 * Admin only. Setting the same period again changes nothing. Changing it while any targets exist
 * would leave them with the wrong number of amounts, so it is a 409 unless `resetTargets` is
 * true, which deletes every target set first.
 */
export async function setPeriod(
  ctx: AuthenticatedContext,
  period: PeriodUnit,
  resetTargets = false,
): Promise<SetPeriodResult> {
  requireAdmin(ctx.principal, 'set the period');
  if (!isPeriodUnit(period)) {
    throw new BadUserInputError(
      `Invalid period: expected weekly, monthly or quarterly, got "${String(period).slice(0, 40)}"`,
      [{ field: 'period', message: 'must be one of weekly, monthly, quarterly' }],
    );
  }
  const current = await readAccountSettings();
  if (current.period === period)
    return { period, values: periodLabels(period), changed: false, targetsDeleted: 0 };
  let targetsDeleted = 0;
  if (resetTargets) {
    targetsDeleted = (await TargetModel.deleteMany({}).exec()).deletedCount;
  } else {
    if (await TargetModel.exists({}).exec()) {
      throw new ConflictError(
        `Cannot change the period from ${current.period ?? '(unset)'} to ${period} while targets exist; ` +
          'send reset_targets: true (GraphQL resetTargets) to delete them',
      );
    }
  }
  await SettingsModel.updateOne(
    { _id: SETTINGS_ID },
    {
      $set: { period },
      ...pushEvents(settingsUpdated({ period, values: periodLabels(period), targetsDeleted })),
    },
    { upsert: true },
  ).exec();
  return { period, values: periodLabels(period), changed: true, targetsDeleted };
}
